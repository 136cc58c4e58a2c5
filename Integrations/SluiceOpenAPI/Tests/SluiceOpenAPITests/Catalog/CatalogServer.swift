import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import Testing

/// The generated server of the test API on Hummingbird, on a free loopback port, for the length of a test.
enum CatalogServer {
    /// Runs `body` while a server of `service` listens on 127.0.0.1, and stops the server when `body` ends.
    ///
    /// - Parameters:
    ///   - service: The implementation of the API.
    ///   - body: What runs against the server, given the API's base URL (`http://127.0.0.1:PORT/v1`).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or what starting the server threw.
    static func with<Result: Sendable>(
        _ service: CatalogService,
        _ body: @Sendable (URL) async throws -> Result
    ) async throws -> Result {
        let router = Router()
        router.middlewares.add(RequestHeadCapture())
        router.middlewares.add(CacheableCounters())
        try service.registerHandlers(on: router, serverURL: try #require(URL(string: "/v1")))
        let (ports, bound) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "catalog-server")
        // Stopping the server at the end of a test cancels its connections, which it logs as errors.
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port {
                    bound.yield(port)
                }
                bound.finish()
            },
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A server that fails to start ends the wait for its port.
                defer { bound.finish() }
                try await app.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw CatalogServerError(message: "the catalog server stopped before it listened")
            }
            defer { group.cancelAll() }
            return try await body(try #require(URL(string: "http://127.0.0.1:\(port)/v1")))
        }
    }
}

/// Why the test server could not serve.
struct CatalogServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Keeps the head of the request being handled in a task local, for the operations that read a field the document
/// does not describe as a parameter (`Authorization`).
struct RequestHeadCapture: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// The head of the request the current task handles.
    @TaskLocal static var current: HTTPRequest?

    func handle(
        _ request: Request,
        context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        try await RequestHeadCapture.$current.withValue(request.head) {
            try await next(request, context)
        }
    }
}

/// Lets a counter's answer be cached for a minute, with the `Cache-Control` field the generated server cannot write
/// as it is (see `readCounter` in the document).
struct CacheableCounters: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(
        _ request: Request,
        context: BasicRequestContext,
        next: (Request, BasicRequestContext) async throws -> Response
    ) async throws -> Response {
        var response = try await next(request, context)
        if request.uri.path.hasPrefix("/v1/counters/") {
            response.headers[.cacheControl] = "max-age=60"
        }
        return response
    }
}
