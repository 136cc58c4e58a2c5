import AsyncHTTPClient
import Foundation
import HTTPTypes
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
    /// No transport: each path's answer fetched once, then handed back from memory, so that the row is what the
    /// generated client and the runtime cost by themselves, the floor under every transport's.
    case floor = "no transport (answers from memory)"

    /// The most connections to the server each transport may open.
    static let connections = 16

    /// The name on the command line.
    var argument: String {
        switch self {
        case .sluice: "sluice"
        case .sluiceURLSession: "sluice-urlsession"
        case .asyncHTTPClient: "ahc"
        case .urlSession: "urlsession"
        case .floor: "floor"
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
        case .floor:
            let transport = MemoryTransport(fetching: SluiceClientTransport(SocketRequestPerformer()))
            return try await body(Client(serverURL: serverURL, transport: transport))
        }
    }

    private static func sessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = connections
        return configuration
    }
}

/// A transport that fetches each path's answer once through another, then hands it back from memory.
private final class MemoryTransport: ClientTransport, @unchecked Sendable {
    private let source: any ClientTransport
    private let lock = NSLock()
    private var answers: [String: (response: HTTPTypes.HTTPResponse, body: [UInt8])] = [:]

    init(fetching source: any ClientTransport) {
        self.source = source
    }

    func send(
        _ request: HTTPTypes.HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let key = request.path ?? "/"
        if let answer = lock.withLock({ answers[key] }) {
            return (answer.response, OpenAPIRuntime.HTTPBody(answer.body))
        }
        let (response, fetched) = try await source.send(request, body: body, baseURL: baseURL, operationID: operationID)
        var bytes: [UInt8] = []
        if let fetched {
            bytes = try await [UInt8](collecting: fetched, upTo: 16 << 20)
        }
        lock.withLock { answers[key] = (response, bytes) }
        return (response, OpenAPIRuntime.HTTPBody(bytes))
    }
}
