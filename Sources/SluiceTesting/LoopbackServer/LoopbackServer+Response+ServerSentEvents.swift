import Foundation
import SluiceCore

// Server-sent events (the WHATWG HTML `text/event-stream` format), each event its own chunk.
extension LoopbackServer.Response {
    /// One event of a `text/event-stream` body, and how long to wait before sending it.
    ///
    /// Fields that are `nil` are left out; an event with none but a delay still sends its blank line, which a
    /// client ignores, so it tests a client's handling of a quiet stream.
    public struct SentEvent: Sendable, Equatable {
        /// The `event` field, the event's type, or `nil`.
        public var event: String?

        /// The data; each of its lines is sent as a `data` field of its own, or none when `nil`.
        public var data: String?

        /// The `id` field, which a client sends back as `Last-Event-ID` when it reconnects, or `nil`.
        public var id: String?

        /// The `retry` field, the reconnection time in milliseconds, or `nil`.
        public var retry: Int?

        /// How long to wait before sending the event; ``LoopbackServer/stop()`` cuts the wait short.
        public var delay: Duration

        /// Creates an event.
        ///
        /// - Parameters:
        ///   - event: The `event` field, or `nil`.
        ///   - data: The data; a multi-line text becomes one `data` field per line (lines end at LF, CR LF or CR).
        ///   - id: The `id` field, or `nil`.
        ///   - retry: The `retry` field in milliseconds, or `nil`.
        ///   - delay: How long to wait before sending the event; negative durations are treated as zero.
        public init(
            event: String? = nil,
            data: String? = nil,
            id: String? = nil,
            retry: Int? = nil,
            after delay: Duration = .zero
        ) {
            self.event = event
            self.data = data
            self.id = id
            self.retry = retry
            self.delay = max(.zero, delay)
        }

        /// The event as it goes on the wire: one `name: value` line per field, then a blank line.
        ///
        /// Line breaks in `event` and `id`, which the format cannot carry, are replaced by spaces.
        public var serialized: String {
            SluiceCore.ServerSentEvent.encode(type: event, data: data, id: id, retry: retry.map(Int64.init))
        }
    }

    /// A `text/event-stream` response that sends each event as its own chunk, after the event's delay.
    ///
    /// The response has `Content-Type: text/event-stream` and `Cache-Control: no-cache`, and is sent with
    /// `Transfer-Encoding: chunked`; the stream ends (with the final chunk) after the last event. Requests the server
    /// received, ``LoopbackServer/receivedRequests``, show the `Last-Event-ID` a reconnecting client sent.
    ///
    /// ```swift
    /// server.route(
    ///     "/events",
    ///     response: .serverSentEvents([
    ///         LoopbackServer.Response.SentEvent(event: "greeting", data: "hello\nworld", id: "1"),
    ///         LoopbackServer.Response.SentEvent(data: "later", id: "2", after: .milliseconds(50)),
    ///     ])
    /// )
    /// ```
    ///
    /// - Parameter events: The events in order.
    /// - Returns: The response.
    public static func serverSentEvents(_ events: [SentEvent]) -> LoopbackServer.Response {
        streamed(
            events.map { Chunk(text: $0.serialized, after: $0.delay) },
            headers: [
                HTTPHeaders.Field("Content-Type", "text/event-stream"),
                HTTPHeaders.Field("Cache-Control", "no-cache"),
            ]
        )
    }
}
