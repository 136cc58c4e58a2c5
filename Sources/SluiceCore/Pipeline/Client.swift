/// Performs requests: runs a ``Request`` through the pipeline and returns its response object.
///
/// ``APIClient`` is the implementation; test doubles implement this protocol too (SluiceTesting's mock client),
/// so code that takes `any Client` can be tested without a network.
///
/// ```swift
/// func loadProfile(using client: any Client) async throws -> User {
///     try await client.perform(GetUser(id: 42))
/// }
/// ```
public protocol Client: Sendable {
    /// Performs a request and returns its response object.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The request's response object.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject

    /// Sends a request and returns its response as soon as the head has arrived and its status is accepted, with
    /// the body still arriving.
    ///
    /// The typed streams (``Client/lines(_:maximumLength:)``, ``Client/events(_:reconnecting:clock:)``,
    /// ``Client/jsonLines(_:of:decoder:maximumLineLength:)``) read this body.
    ///
    /// - Parameter request: The request to send; its parser and `parse` are not used.
    /// - Returns: The head and the body, whose errors are ``SluiceError``s.
    /// - Throws: ``SluiceError`` naming the stage that failed before the body.
    func stream<R: Request>(_ request: R) async throws(SluiceError) -> HTTPResponse.Streamed

    /// Opens a WebSocket described by a request: built as any request is, its handshake sent through the client's
    /// performer, so that its middleware (a credential, a retry policy, an observer) applies.
    ///
    /// - Parameters:
    ///   - request: The request; its URL's scheme is `ws`, `wss`, `http` or `https`, its parser and `parse` are not
    ///     used.
    ///   - protocols: The subprotocols to offer, in order of preference.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket.
    /// - Throws: ``SluiceError`` naming the stage that failed: build, or handshake (with the server's status when it
    ///   refused).
    func webSocket<R: Request>(
        _ request: R,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws(SluiceError) -> WebSocket
}

extension Client {
    /// Fails: a client that does not implement ``stream(_:)`` does not stream.
    ///
    /// - Parameter request: The request.
    /// - Returns: Never.
    /// - Throws: ``SluiceError/Code/transport`` saying that the client does not stream.
    public func stream<R: Request>(_ request: R) async throws(SluiceError) -> HTTPResponse.Streamed {
        throw SluiceError(.transport, message: "\(Self.self) does not stream responses")
    }

    /// Fails: a client that does not implement ``webSocket(_:protocols:configuration:)`` opens no WebSockets.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: Never.
    /// - Throws: ``SluiceError/Code/handshake`` saying that the client opens no WebSockets.
    public func webSocket<R: Request>(
        _ request: R,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws(SluiceError) -> WebSocket {
        throw SluiceError(.handshake, message: "\(Self.self) does not open WebSockets")
    }

    /// Opens a WebSocket described by a request, with the default ``WebSocket/Configuration``.
    ///
    /// ```swift
    /// let socket = try await client.webSocket(ChatRoom(id: 7), protocols: ["chat.v2"])
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - protocols: The subprotocols to offer, in order of preference; none by default.
    /// - Returns: The open WebSocket.
    /// - Throws: What ``webSocket(_:protocols:configuration:)`` throws.
    public func webSocket<R: Request>(
        _ request: R,
        protocols: [String] = []
    ) async throws(SluiceError) -> WebSocket {
        try await webSocket(request, protocols: protocols, configuration: WebSocket.Configuration())
    }
}
