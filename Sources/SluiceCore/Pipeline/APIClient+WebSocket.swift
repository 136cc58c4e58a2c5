extension APIClient {
    /// Opens a WebSocket described by a request, through the same stages as ``perform(_:)`` up to the transport.
    ///
    /// The request is built once, and its handshake sent through the performer's
    /// ``RequestPerformer/webSocket(_:protocols:configuration:)`` under the request's ``RequestContext``, so that every
    /// decorator sees it: an authenticating performer adds its credential and refreshes it after a 401, a retrying
    /// one tries a refused or failed handshake again, an observer reports it. The ``deadline`` bounds the handshake,
    /// not the open WebSocket. The observers' finish event comes when the handshake has succeeded (with the server's
    /// 101 answer) or failed.
    ///
    /// ```swift
    /// struct ChatRoom: Request {
    ///     typealias ResponseObject = Void
    ///     let id: Int
    ///     func build() throws -> URLRequest {
    ///         URLRequest(url: URL(string: "wss://chat.example.com/rooms/\(id)")!)
    ///     }
    /// }
    ///
    /// let socket = try await client.webSocket(ChatRoom(id: 7), protocols: ["chat.v2"])
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its URL's scheme is `ws`, `wss`, `http` or `https`, its parser and `parse` are not
    ///     used.
    ///   - protocols: The subprotocols to offer, in order of preference.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket.
    /// - Throws: ``SluiceError`` naming the stage that failed: build, or handshake with the server's status and
    ///   fields when it refused; ``SluiceError/Code/timedOut`` past the deadline.
    public func webSocket<R: Request>(
        _ request: R,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws(SluiceError) -> WebSocket {
        var record = PipelineRecord()
        do {
            let elapsed = deadline.map { _ in Stopwatch(self.clock) }
            let (urlRequest, context) = try build(request, into: &record, elapsed: elapsed)
            let socket = try await transport(urlRequest, in: context, into: &record, elapsed: elapsed) {
                performer,
                request in
                try await performer.webSocket(request, protocols: protocols, configuration: configuration)
            }
            record.response = socket.response
            finish(record, error: nil)
            return socket
        } catch {
            throw fail(record, error)
        }
    }
}
