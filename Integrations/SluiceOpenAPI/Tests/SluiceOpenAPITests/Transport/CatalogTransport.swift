import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import Testing

/// The transports the same generated client runs on in the tests: Sluice's, on each of its two performers, and
/// swift-openapi-async-http-client's, the reference.
enum CatalogTransport: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `SluiceClientTransport` on Sluice's own socket transport.
    case sluiceSockets
    /// `SluiceClientTransport` on URLSession.
    case sluiceURLSession
    /// The reference: async-http-client's OpenAPI transport.
    case asyncHTTPClient

    /// The Sluice transports, each compared against the reference.
    static let sluice: [CatalogTransport] = [.sluiceSockets, .sluiceURLSession]

    var testDescription: String { rawValue }

    /// The transport, sending through `middleware` where it is a Sluice one.
    ///
    /// The reference gives up after `timeout`: async-http-client tries a refused connection again until then.
    func make(
        timeout: TimeAmount = .minutes(1),
        _ middleware: (any RequestPerformer) -> any RequestPerformer = { $0 }
    ) -> any ClientTransport {
        switch self {
        case .sluiceSockets: SluiceClientTransport(middleware(SocketRequestPerformer()))
        case .sluiceURLSession: SluiceClientTransport(middleware(NetworkRequestPerformer()))
        case .asyncHTTPClient: AsyncHTTPClientTransport(configuration: .init(timeout: timeout))
        }
    }

    /// A generated client of the test API at `serverURL` on this transport.
    func client(
        _ serverURL: URL,
        middlewares: [any ClientMiddleware] = [],
        timeout: TimeAmount = .minutes(1),
        through middleware: (any RequestPerformer) -> any RequestPerformer = { $0 }
    ) -> Client {
        Client(serverURL: serverURL, transport: make(timeout: timeout, middleware), middlewares: middlewares)
    }
}

/// What a response was on the wire, as the generated client's middleware sees it below the client: its status, its
/// fields but `Date`, sorted, names in lower case, and its body's bytes, `nil` when there are none (the reference
/// hands out an empty body where Sluice's transport hands out none, for a response of `Content-Length: 0`).
struct WireResponse: Sendable, Hashable, CustomStringConvertible {
    var operationID: String
    var status: Int
    var fields: [String]
    var body: [UInt8]?

    var description: String {
        "\(operationID) \(status) \(fields) \(body.map { "\($0.count) bytes" } ?? "no body")"
    }
}

/// Records every response a client receives, as `WireResponse`s, handing the client the same bytes.
final class WireRecorder: ClientMiddleware {
    private let recorded = Protected<[WireResponse]>([])

    var responses: [WireResponse] { recorded.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String,
        next:
            @Sendable (HTTPRequest, OpenAPIRuntime.HTTPBody?, URL) async throws -> (
                HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?
            )
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let bytes: [UInt8]? =
            if let responseBody { try await [UInt8](collecting: responseBody, upTo: 16 << 20) } else { nil }
        let recordedBody = bytes?.isEmpty == true ? nil : bytes
        let fields = response.headerFields.filter { $0.name != .date }
            .map { "\($0.name.canonicalName): \($0.value)" }.sorted()
        recorded.withLock {
            $0.append(
                WireResponse(operationID: operationID, status: response.status.code, fields: fields, body: recordedBody)
            )
        }
        return (response, bytes.map { OpenAPIRuntime.HTTPBody($0) })
    }
}
