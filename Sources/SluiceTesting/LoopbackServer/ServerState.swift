import Foundation
import SluiceCore

/// The mutable state a ``LoopbackServer`` shares with its accept and connection threads.
///
/// `@unchecked Sendable` is sound here because every stored `var` is read and written only while `lock` is held
/// (each method takes the lock for its whole body and calls out while holding it only to the `open` gauge, whose own
/// lock takes no other), and `lock` itself is a `let`. Route handlers are returned to the caller and run after the
/// lock is released, so a handler that calls back into the server cannot deadlock. Only the server and its threads
/// ever see an instance: the server keeps it in a `private` property.
final class ServerState: @unchecked Sendable {
    /// Guards every `var` below.
    private let lock = NSLock()

    /// The registered routes.
    private var routes = RouteTable()

    /// Every complete request, in arrival order; only the most recent ones when ``logLimit`` is set.
    private var requests: [LoopbackServer.Request] = []

    /// How many requests the log keeps, the most recent; `nil` keeps them all.
    private let logLimit: Int?

    /// Complete requests since the start, including those the log no longer keeps.
    private var total = 0

    /// Every frame clients sent on WebSocket routes, and every refusal of one, in arrival order.
    private var webSocketEvents: [LoopbackServer.WebSocketEvent] = []

    init(logLimit: Int? = nil) {
        self.logLimit = logLimit.map { max(0, $0) }
    }

    /// Connections accepted since the start.
    private var accepted = 0

    /// Connections accepted and not closed yet, changed under `lock` with ``accepted``; a gauge, so that a test can
    /// await the count.
    let open = Gauge()

    /// Whether ``beginStopping()`` has been called.
    private var stopping = false

    /// Runs `body` with the lock held.
    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Adds a route, replacing one registered earlier for the same method and pattern.
    func addRoute(method: String?, pattern: String, handler: @escaping RouteHandler) {
        locked { routes.add(method: method, pattern: pattern, handler: handler) }
    }

    /// Removes every route.
    func removeAllRoutes() {
        locked { routes.removeAll() }
    }

    /// The handler of the most specific route for the request, if any; call it after this returns.
    func handler(for request: LoopbackServer.Request) -> RouteHandler? {
        locked { routes.handler(method: request.method, path: request.path) }
    }

    /// Appends a complete request to the log.
    func record(_ request: LoopbackServer.Request) {
        locked {
            total += 1
            requests.append(request)
            if let logLimit, requests.count > logLimit {
                requests.removeFirst(requests.count - logLimit)
            }
        }
    }

    /// Appends a client's WebSocket frame, or the server's refusal of one, to the log.
    func recordWebSocket(_ event: LoopbackServer.WebSocketEvent) {
        locked { webSocketEvents.append(event) }
    }

    /// Every frame clients sent on WebSocket routes, and every refusal of one, in arrival order.
    var receivedWebSocketEvents: [LoopbackServer.WebSocketEvent] {
        locked { webSocketEvents }
    }

    /// Complete requests since the start, including those the log no longer keeps.
    var requestCount: Int {
        locked { total }
    }

    /// Every complete request, in arrival order.
    var receivedRequests: [LoopbackServer.Request] {
        locked { requests }
    }

    /// Empties the request log.
    func clearReceivedRequests() {
        locked { requests.removeAll() }
    }

    /// Counts a newly accepted connection.
    ///
    /// - Returns: `false` when the server is stopping; the caller then closes the connection at once.
    func connectionAccepted() -> Bool {
        locked {
            accepted += 1
            guard !stopping else {
                return false
            }
            open.add(1)
            return true
        }
    }

    /// Counts a connection whose socket has been closed.
    func connectionClosed() {
        locked { open.add(-1) }
    }

    /// Connections accepted since the start.
    var acceptedConnections: Int {
        locked { accepted }
    }

    /// Connections accepted and not closed yet.
    var openConnections: Int {
        open.value
    }

    /// Marks the server as stopping.
    ///
    /// - Returns: `true` for the first call only.
    func beginStopping() -> Bool {
        locked {
            defer { stopping = true }
            return !stopping
        }
    }
}
