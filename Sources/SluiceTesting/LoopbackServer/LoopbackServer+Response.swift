public import Foundation
public import SluiceCore

extension LoopbackServer {
    /// What a ``LoopbackServer`` route answers: a status, headers, a body, and optionally a delay or a fault.
    ///
    /// The server owns the message framing: it drops any `Content-Length` or `Transfer-Encoding` you put in
    /// ``headers`` and writes correct ones itself. To send a broken or unusual framing on purpose, use a ``Fault``.
    ///
    /// A body can also be sent piece by piece, with pauses: ``streamed(_:status:headers:announcingLength:)`` for pieces
    /// you give, ``generated(byteCount:chunkSize:pause:announcingLength:)`` for a large deterministic body that is never
    /// held in memory, and ``serverSentEvents(_:)`` for a `text/event-stream`. ``servingRanges(etag:lastModified:)``
    /// makes any of them answer `Range` requests.
    ///
    /// ```swift
    /// server.route("GET", "/users", response: .json(#"[{"id":1}]"#))
    /// server.route("/slow", response: .text("late").delayed(by: .seconds(2)))
    /// server.route("/flaky", response: .text("lost").injecting(.closeMidBody(afterBytes: 2)))
    /// ```
    public struct Response: Sendable {
        /// The status code, such as `200`; must be in `200...999` (anything else is answered with a 500 that says so).
        public var status: Int

        /// Header fields to send, in order; names must be HTTP tokens and values must not contain CR, LF or NUL.
        public var headers: [HTTPHeaders.Field]

        /// The body; not sent for `HEAD` requests or for `204` and `304` statuses.
        ///
        /// A streamed response (made by ``streamed(_:status:headers:announcingLength:)``,
        /// ``generated(byteCount:chunkSize:pause:announcingLength:)`` or ``serverSentEvents(_:)``) sends its pieces
        /// instead, and leaves this empty.
        public var body: Data

        /// How long to wait before sending anything; ``LoopbackServer/stop()`` cuts the wait short.
        public var delay: Duration

        /// A deliberate misbehaviour to apply when sending, or `nil` to answer normally.
        public var fault: Fault?

        /// The body produced piece by piece, or `nil` when ``body`` is sent as it is.
        var stream: BodyStream?

        /// How the response answers `Range` requests, or `nil` when it ignores them.
        var rangeOptions: RangeOptions?

        /// The WebSocket the response opens after checking the handshake, or `nil` for an HTTP response.
        var webSocket: WebSocketScript?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - status: The status code; `200` unless you say otherwise.
        ///   - headers: Header fields to send, in order.
        ///   - body: The body bytes.
        ///   - delay: How long to wait before sending anything.
        ///   - fault: A deliberate misbehaviour to apply, or `nil`.
        public init(
            status: Int = 200,
            headers: [HTTPHeaders.Field] = [],
            body: Data = Data(),
            delay: Duration = .zero,
            fault: Fault? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.fault = fault
        }

        /// A response whose body is the given JSON text, with `Content-Type: application/json`.
        ///
        /// - Parameters:
        ///   - text: The JSON document, sent as UTF-8 without being validated.
        ///   - status: The status code; `200` unless you say otherwise.
        /// - Returns: The response.
        public static func json(_ text: String, status: Int = 200) -> LoopbackServer.Response {
            LoopbackServer.Response(
                status: status,
                headers: [.init("Content-Type", "application/json")],
                body: Data(text.utf8)
            )
        }

        /// A response whose body is the given text, with `Content-Type: text/plain; charset=utf-8`.
        ///
        /// - Parameters:
        ///   - text: The body, sent as UTF-8.
        ///   - status: The status code; `200` unless you say otherwise.
        /// - Returns: The response.
        public static func text(_ text: String, status: Int = 200) -> LoopbackServer.Response {
            LoopbackServer.Response(
                status: status,
                headers: [.init("Content-Type", "text/plain; charset=utf-8")],
                body: Data(text.utf8)
            )
        }

        /// A copy of this response that waits before sending anything.
        ///
        /// - Parameter delay: How long to wait; ``LoopbackServer/stop()`` cuts the wait short.
        /// - Returns: The delayed response.
        public func delayed(by delay: Duration) -> LoopbackServer.Response {
            var copy = self
            copy.delay = delay
            return copy
        }

        /// A copy of this response that is sent with the given fault.
        ///
        /// - Parameter fault: The misbehaviour to apply when sending.
        /// - Returns: The faulty response.
        public func injecting(_ fault: Fault) -> LoopbackServer.Response {
            var copy = self
            copy.fault = fault
            return copy
        }

        /// A copy of this response with one more header field appended.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        /// - Returns: The response with the extra header.
        public func addingHeader(_ name: String, _ value: String) -> LoopbackServer.Response {
            var copy = self
            copy.headers.append(HTTPHeaders.Field(Header(name), value))
            return copy
        }
    }
}
