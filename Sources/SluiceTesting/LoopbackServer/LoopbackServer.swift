public import Foundation
package import SluiceCore

/// An HTTP/1.1 server on 127.0.0.1 for integration tests: register routes, point a client at it, check what arrived.
///
/// The server binds an ephemeral port and accepts connections as soon as it is created. Each connection is served on
/// its own thread, with keep-alive, pipelining, `Expect: 100-continue`, chunked request bodies and `HEAD`. Responses
/// can be delayed or sent with a ``LoopbackServer/Response/Fault`` to test a client's error handling, streamed piece by piece
/// (``LoopbackServer/Response/streamed(_:status:headers:announcingLength:)``,
/// ``LoopbackServer/Response/generated(byteCount:chunkSize:pause:announcingLength:)``,
/// ``LoopbackServer/Response/serverSentEvents(_:)``), can answer range requests
/// (``LoopbackServer/Response/servingRanges(etag:lastModified:)``), and can open WebSockets that run a script of frames
/// (``LoopbackServer/Response/webSocket(_:subprotocols:)``).
///
/// ```swift
/// let server = try LoopbackServer()
/// defer { server.stop() }
/// server.route("GET", "/users", response: .json(#"[{"id":1}]"#))
/// let (data, _) = try await URLSession.shared.data(from: server.url("/users?page=2"))
/// #expect(server.receivedRequests.first?.queryItems == [URLQueryItem(name: "page", value: "2")])
/// ```
///
/// Limits protect the test process from a misbehaving client: a request head over 64 KiB is answered with 431, a
/// body over 64 MiB with 413, anything malformed with 400 (including a request that has both `Content-Length` and
/// `Transfer-Encoding`, a smuggling vector RFC 9112 §6.3 warns about), and the connection is closed after each of
/// these.
///
/// All members are safe to call from any thread. ``stop()`` is called by `deinit` too, so a server that goes out of
/// scope closes its port; call it yourself to make the moment explicit.
public final class LoopbackServer: Sendable {
    /// The longest ``stop()`` waits for connection threads that are busy in a route's closure.
    private static let stopTimeout = DispatchTimeInterval.seconds(5)

    /// The length of the queue of connections the kernel holds before they are accepted.
    private static let listenBacklog: Int32 = 1_024

    /// The TCP port the server listens on, on 127.0.0.1.
    public let port: Int

    /// The server's root URL, `http://127.0.0.1:<port>`, without a trailing slash.
    public let baseURL: URL

    /// Routes, request log and counters, shared with the server's threads.
    private let state: ServerState

    /// Wakes every thread of the server when it stops.
    private let stopSignal: StopSignal

    /// Tracks the accept thread and every connection thread.
    private let threads = DispatchGroup()

    /// Binds 127.0.0.1 on a port the system picks and starts accepting connections at once.
    ///
    /// - Parameter requestLogLimit: How many requests ``receivedRequests`` keeps, the most recent; all by default.
    ///   Set it for load tests, whose log would otherwise grow with every request.
    /// - Throws: ``SluiceTestingError`` naming the system call that failed, such as `bind` or `pthread_create`.
    public init(requestLogLimit: Int? = nil) throws {
        state = ServerState(logLimit: requestLogLimit)
        stopSignal = try StopSignal()
        let (listener, port) = try Socket.listenOnLoopback(backlog: Self.listenBacklog)
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            listener.closeDescriptor()
            throw SluiceTestingError("URL(string:)", errno: EINVAL)
        }
        self.port = port
        self.baseURL = baseURL
        let acceptor = ConnectionAcceptor(listener: listener, state: state, stop: stopSignal, threads: threads)
        threads.enter()
        let result = ThreadLauncher.start(name: "loopback-accept") { [threads] in
            acceptor.run()
            threads.leave()
        }
        guard result == 0 else {
            threads.leave()
            listener.closeDescriptor()
            throw SluiceTestingError("pthread_create", errno: result)
        }
    }

    deinit {
        stop()
    }

    /// Requests the server has read completely (body included), in arrival order.
    ///
    /// A request is recorded before its route runs, so it shows up here while a delayed response is still pending.
    /// Requests refused with 400, 413, 417, 431, 501 or 505 are not recorded.
    public var receivedRequests: [LoopbackServer.Request] {
        state.receivedRequests
    }

    /// The frames clients sent on WebSocket routes (``LoopbackServer/Response/webSocket(_:subprotocols:)``), in arrival order,
    /// across connections, with the server's refusal of any frame that broke a rule.
    ///
    /// A frame is recorded before the server acts on it, so once a client has read the server's answer (an echo, the
    /// server's closing frame), what it sent is here.
    public var receivedWebSocketEvents: [LoopbackServer.WebSocketEvent] {
        state.receivedWebSocketEvents
    }

    /// How many TCP connections the server has accepted since it started.
    public var acceptedConnections: Int {
        state.acceptedConnections
    }

    /// How many accepted TCP connections are still open on the server's side.
    ///
    /// After a response with `Connection: close` the server waits briefly for the client to close first (so that the
    /// client reliably reads the whole response), so this count can lag a moment behind the client's view.
    public var openConnections: Int {
        state.openConnections
    }

    /// The gauge that counts ``openConnections``, for a test to await a count rather than poll it.
    package var openConnectionsGauge: Gauge {
        state.open
    }

    /// A URL on this server made of ``baseURL`` and a path with an optional query.
    ///
    /// Characters that are not allowed in a URL, such as spaces, are percent-encoded; `%` itself is left alone, so
    /// already encoded input stays as it is.
    ///
    /// - Parameter pathAndQuery: A path and optional query such as `/users?page=2`; a missing leading `/` is added.
    /// - Returns: The URL, such as `http://127.0.0.1:54321/users?page=2`.
    public func url(_ pathAndQuery: String) -> URL {
        let relative = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        if let url = URL(string: baseURL.absoluteString + relative) {
            return url
        }
        var allowed = CharacterSet.urlPathAllowed
        allowed.formUnion(.urlQueryAllowed)
        allowed.insert(charactersIn: "%?#")
        let encoded = relative.addingPercentEncoding(withAllowedCharacters: allowed) ?? relative
        return URL(string: baseURL.absoluteString + encoded) ?? baseURL
    }

    /// Answers requests for a method and path by calling a closure.
    ///
    /// The closure runs on the connection's thread, once per request; it may call back into the server. Registering
    /// the same method and path again replaces the earlier route.
    ///
    /// - Parameters:
    ///   - method: The method to match exactly, such as `GET`, or `nil` for any method.
    ///   - path: An exact path such as `/users`, or a prefix ending in `/*` such as `/files/*` (which matches
    ///     `/files/a/b` but not `/files`). It is compared with the request path still percent-encoded, without query.
    ///   - respond: Makes the response for a request.
    public func route(
        _ method: String?,
        _ path: String,
        respond: @escaping @Sendable (LoopbackServer.Request) -> LoopbackServer.Response
    ) {
        state.addRoute(method: method, pattern: path, handler: respond)
    }

    /// Answers requests for a method and path with a fixed response.
    ///
    /// - Parameters:
    ///   - method: The method to match exactly, such as `GET`, or `nil` for any method.
    ///   - path: An exact path such as `/users`, or a prefix ending in `/*`.
    ///   - response: The response to send every time.
    public func route(_ method: String?, _ path: String, response: LoopbackServer.Response) {
        route(method, path) { _ in response }
    }

    /// Answers requests with any method for a path by calling a closure.
    ///
    /// - Parameters:
    ///   - path: An exact path such as `/users`, or a prefix ending in `/*`.
    ///   - respond: Makes the response for a request.
    public func route(_ path: String, respond: @escaping @Sendable (LoopbackServer.Request) -> LoopbackServer.Response)
    {
        route(nil, path, respond: respond)
    }

    /// Answers requests with any method for a path with a fixed response.
    ///
    /// - Parameters:
    ///   - path: An exact path such as `/users`, or a prefix ending in `/*`.
    ///   - response: The response to send every time.
    public func route(_ path: String, response: LoopbackServer.Response) {
        route(nil, path, response: response)
    }

    /// Removes every route, so that every request gets the 404 again.
    public func removeAllRoutes() {
        state.removeAllRoutes()
    }

    /// The number of complete requests since the start, including those the log no longer keeps.
    public var requestCount: Int {
        state.requestCount
    }

    /// Empties ``receivedRequests``, for tests that check what one step of a longer scenario sent.
    public func clearReceivedRequests() {
        state.clearReceivedRequests()
    }

    /// Stops the server: closes the port, ends every connection and waits for the server's threads.
    ///
    /// Pending delays, drip pauses, reads and writes end at once; a route closure that is running finishes first. The
    /// wait for threads is bounded (5 seconds), and skipped when called from one of the server's own threads. Calling
    /// `stop()` again does nothing more. ``receivedRequests`` and the counters stay readable afterwards.
    public func stop() {
        if state.beginStopping() {
            stopSignal.fire()
        }
        if !ThreadLauncher.isServerThread {
            _ = threads.wait(timeout: .now() + Self.stopTimeout)
        }
    }
}
