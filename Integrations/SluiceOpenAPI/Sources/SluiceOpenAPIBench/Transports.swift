import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import Sluice
import SluiceOpenAPI

#if canImport(FoundationNetworking)
// URLSession is in FoundationNetworking on Linux.
import FoundationNetworking
#endif

/// The transports the same generated client is measured on, each allowed 16 connections to the server, as many as
/// the most concurrent requests.
enum BenchmarkTransport: String, CaseIterable {
    /// `SluiceClientTransport` on Sluice's default Linux performer, its own socket transport.
    case sluice = "Sluice (SocketRequestPerformer)"
    /// `SluiceClientTransport` on URLSession, through Sluice's URLSession performer.
    case sluiceURLSession = "Sluice (NetworkRequestPerformer)"
    /// swift-openapi-async-http-client's transport, the reference.
    case asyncHTTPClient = "async-http-client"
    /// swift-openapi-urlsession's transport, which buffers every body on Linux.
    case urlSession = "swift-openapi-urlsession"

    /// The most connections to the server each transport may open.
    static let connections = 16

    /// The name on the command line.
    var argument: String {
        switch self {
        case .sluice: "sluice"
        case .sluiceURLSession: "sluice-urlsession"
        case .asyncHTTPClient: "ahc"
        case .urlSession: "urlsession"
        }
    }

    /// Whether the transport streams a body both ways, so that a large one stays out of memory.
    var streams: Bool { self == .sluice || self == .asyncHTTPClient }

    /// Runs `body` with a generated client of the API at `serverURL` on a new transport, with connections of its
    /// own, and shuts the transport's client down after it.
    func withClient<Result>(
        _ serverURL: URL,
        _ body: (Client) async throws -> Result
    ) async throws -> Result {
        switch self {
        case .sluice:
            var configuration = SocketRequestPerformer.Configuration()
            configuration.maximumConnectionsPerOrigin = Self.connections
            let transport = SluiceClientTransport(SocketRequestPerformer(configuration: configuration))
            return try await body(Client(serverURL: serverURL, transport: transport))
        case .sluiceURLSession:
            let performer = NetworkRequestPerformer(configuration: Self.sessionConfiguration())
            return try await body(Client(serverURL: serverURL, transport: SluiceClientTransport(performer)))
        case .asyncHTTPClient:
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = Self.connections
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let transport = AsyncHTTPClientTransport(configuration: .init(client: client))
            let result: Result
            do {
                result = try await body(Client(serverURL: serverURL, transport: transport))
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
            return result
        case .urlSession:
            let session = URLSession(configuration: Self.sessionConfiguration())
            defer { session.invalidateAndCancel() }
            let transport = URLSessionTransport(configuration: .init(session: session))
            return try await body(Client(serverURL: serverURL, transport: transport))
        }
    }

    private static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        return configuration
    }
}
