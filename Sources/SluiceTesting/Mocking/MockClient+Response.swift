public import SluiceCore

extension MockClient {
    /// What a ``MockClient`` stub answers: a value, an error, or an HTTP response that goes through the request's real
    /// response stages, as a server's would.
    ///
    /// ```swift
    /// mock.stub(GetUser.self, .value(User(id: 1, name: "Ada")))
    /// mock.stub(GetUser.self, .json(#"{"id": 1, "name": "Ada"}"#))       // decoded by the request itself
    /// mock.stub(GetUser.self, .json(#"{"message": "gone"}"#, status: 410))  // a status error with its error body
    /// mock.stub(GetUser.self, .failure(SluiceError(.timedOut)))
    /// ```
    public struct Response<Value>: Sendable {
        enum Content: Sendable {
            case value(@Sendable () -> Value)
            case failure(SluiceError)
            case http(HTTPResponse)
            case stream(MockClient.StreamScript)
            case webSocket(MockClient.WebSocketScript)
        }

        let content: Content
        /// How long the stub waits before answering; cancelling the calling task ends the wait.
        public var delay: Duration = .zero

        /// Answers with a response object.
        ///
        /// - Parameter value: The response object.
        /// - Returns: The mock response.
        public static func value(_ value: Value) -> Response where Value: Sendable {
            Response(content: .value({ value }))
        }

        /// Answers with an error.
        ///
        /// - Parameter error: The error the client throws.
        /// - Returns: The mock response.
        public static func failure(_ error: SluiceError) -> Response {
            Response(content: .failure(error))
        }

        /// Answers with an HTTP response, which the request's status validation, deserializer and parser handle.
        ///
        /// - Parameter response: The response.
        /// - Returns: The mock response.
        public static func http(_ response: HTTPResponse) -> Response {
            Response(content: .http(response))
        }

        /// Answers with a streamed response: ``MockClient/stream(_:)`` and the typed streams built on it read its body as
        /// it is played; ``MockClient/perform(_:)`` reads it whole, then decodes it as the request does.
        ///
        /// - Parameter stream: The scripted head and body.
        /// - Returns: The mock response.
        public static func stream(_ stream: MockClient.StreamScript) -> Response {
            Response(content: .stream(stream))
        }

        /// Answers a WebSocket's handshake with a scripted server (``MockClient/webSocket(_:protocols:configuration:)``).
        ///
        /// - Parameter socket: The script.
        /// - Returns: The answer.
        public static func webSocket(_ socket: MockClient.WebSocketScript) -> Response {
            Response(content: .webSocket(socket))
        }

        /// Answers with a JSON body, which the request decodes.
        ///
        /// - Parameters:
        ///   - text: The body's JSON text.
        ///   - status: The status; 200 by default.
        /// - Returns: The mock response.
        public static func json(_ text: String, status: HTTPStatus = .ok) -> Response {
            .http(HTTPResponse(status: status, headers: [.contentType: "application/json"], body: Data(text.utf8)))
        }

        /// This response, answered after a delay.
        ///
        /// - Parameter delay: How long to wait before answering.
        /// - Returns: The delayed response.
        public func delayed(by delay: Duration) -> Response {
            var copy = self
            copy.delay = delay
            return copy
        }
    }
}
