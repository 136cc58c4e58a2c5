import Foundation

// A route that opens a WebSocket (RFC 6455) and runs a script on it.
extension LoopbackServer.Response {
    /// A response that accepts a WebSocket handshake, then runs a script of steps: messages and control frames to
    /// send, messages to receive, the closing handshake, and faults.
    ///
    /// ```swift
    /// server.route("/chat", response: .webSocket([.text("welcome"), .receive, .close(reason: "bye")]))
    /// server.route("/echo", response: .webSocket([.echo]))
    /// server.route("/broken", response: .webSocket([.maskedFrame(text: "hi"), .awaitClose]))
    /// ```
    ///
    /// The handshake is checked as strictly as a real server checks it (RFC 6455, section 4.2.1): a GET in HTTP/1.1
    /// without a body, with `Host`, `Upgrade: websocket`, `Connection: Upgrade`, a `Sec-WebSocket-Key` of 16 bytes in
    /// base64 and `Sec-WebSocket-Version: 13`. A request without `Upgrade: websocket` is answered with
    /// `426 Upgrade Required`, one with another version with 426 and `Sec-WebSocket-Version: 13`, any other flaw with
    /// 400; the body names the rule, and the connection is closed. A valid one is answered with
    /// `101 Switching Protocols` and the right `Sec-WebSocket-Accept`, then the steps run (see
    /// ``WebSocketStep``); the connection is closed when they are over, without a closing frame unless a step sent
    /// one. No extension is negotiated: a `permessage-deflate` offer is declined by leaving it out of the answer.
    ///
    /// The handshake request is recorded in ``LoopbackServer/receivedRequests``, and the client's frames in
    /// ``LoopbackServer/receivedWebSocketEvents``. The response's ``headers`` go with the 101 answer, its ``delay``
    /// is waited out before it, and a ``Fault`` (such as ``Fault/raw(_:pause:thenClose:)`` for a broken 101 answer)
    /// is sent instead of the handshake, as on an empty 200 response.
    ///
    /// - Parameters:
    ///   - steps: The script, run in order once the handshake is done.
    ///   - subprotocols: The subprotocols the route speaks, in order of preference: the answer names the first the
    ///     client offers, and none when the client offers none of them.
    /// - Returns: The response.
    public static func webSocket(_ steps: [WebSocketStep], subprotocols: [String] = []) -> LoopbackServer.Response {
        var response = LoopbackServer.Response(status: 101)
        response.webSocket = WebSocketScript(steps: steps, subprotocols: subprotocols)
        return response
    }
}

/// What a WebSocket route does once its handshake is done.
struct WebSocketScript: Sendable {
    /// The steps, in order.
    var steps: [LoopbackServer.Response.WebSocketStep]
    /// The subprotocols the route speaks, in order of preference.
    var subprotocols: [String]
}
