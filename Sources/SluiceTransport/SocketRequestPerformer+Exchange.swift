import Foundation

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SocketRequestPerformer {
    /// How many times a request the server never processed (its HTTP/2 stream refused, or above a `GOAWAY`'s last)
    /// goes again on another connection, whatever its method: a server that refuses every stream is not asked
    /// forever.
    static let maximumUnprocessedResends = 2

    /// Runs one exchange on a pooled connection, and once more on a new connection when a kept-alive one turns
    /// out to have been closed by the server and the request may be sent twice.
    func exchange<Response: Sendable>(
        _ request: URLRequest,
        origin: Origin,
        delivery: (CheckedContinuation<Response, any Error>) -> Exchange.Delivery,
        attempt: (any WireAttempt)?
    ) async throws -> Response {
        let head = try RequestHead(
            request,
            target: origin,
            offering: configuration.decompressesBodies ? ContentCoding.acceptEncoding : nil
        )
        let decoding =
            head.offersEncodings ? ContentDecoding(maximumRatio: configuration.maximumDecompressionRatio) : nil
        let idleTimeout = Duration(idleTimeout: request.timeoutInterval)
        let reporter = TransportScope.uploadProgress
        let mayRepeat = HTTPMethod(head.method).isIdempotent && request.bodyCanBeSentAgain
        var fresh = false
        var unprocessedResends = 0
        EventLoop.requestsInFlight.add(1)
        defer { EventLoop.requestsInFlight.add(-1) }
        while true {
            try Task.checkCancellation()
            let timings = attempt.map { _ in ConnectionTimings() }
            let connection = try await pool.acquire(origin, fresh: fresh, timings: timings)
            if let attempt, let timings {
                attempt.noteConnection(timings.report(for: connection))
            }
            let exchange = Exchange(
                request: request.forThisAttempt,
                head: head,
                idleTimeout: idleTimeout,
                upload: reporter,
                bodyLimit: configuration.maximumBodySize,
                now: connection.loop.now
            )
            exchange.decoding = decoding
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        exchange.delivery = delivery(continuation)
                        connection.start(exchange)
                    }
                } onCancel: {
                    exchange.cancelled.withLock { $0 = true }
                    connection.cancel(exchange)
                }
            } catch let stale as StaleConnection {
                guard mayRepeat, !fresh else { throw stale.error }
                fresh = true
            } catch let unprocessed as UnprocessedStream {
                guard request.bodyCanBeSentAgain, unprocessedResends < Self.maximumUnprocessedResends else {
                    throw unprocessed.error
                }
                unprocessedResends += 1
            }
        }
    }
}
