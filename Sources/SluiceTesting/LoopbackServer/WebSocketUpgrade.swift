import Foundation
import SluiceCore

/// A server's side of a WebSocket's opening handshake (RFC 6455, section 4.2): the checks on a client's request, and
/// the 101 answer.
///
/// As strict as a real server, so that a client's handshake that one would refuse is refused here too: the request
/// must be a GET in HTTP/1.1 without a body, with `Host`, `Upgrade: websocket`, `Connection: Upgrade`, one
/// `Sec-WebSocket-Key` of 16 bytes in base64 and `Sec-WebSocket-Version: 13`.
enum WebSocketUpgrade {
    /// The outcome of the checks: the 101 answer's head, or the refusal to send instead.
    enum Outcome {
        /// The request is a valid handshake: the head of the 101 answer.
        case accepted(head: [UInt8])
        /// It is not: the answer to send, which closes the connection.
        case refused(LoopbackServer.Response)
    }

    /// Checks a handshake request and makes the answer.
    ///
    /// - Parameters:
    ///   - head: The request's head.
    ///   - bodyLength: How many body bytes came with it.
    ///   - headers: The route's header fields, which the 101 answer adds to its own.
    ///   - subprotocols: The subprotocols the route speaks, in order of preference.
    /// - Returns: The 101 answer's head, or a 400 or 426 answer that says what the request lacked.
    static func answer(
        _ head: RequestHead,
        bodyLength: Int,
        headers: [HTTPHeaders.Field],
        subprotocols: [String]
    ) -> Outcome {
        func refuse(
            _ status: Int,
            _ rule: String,
            _ extra: [HTTPHeaders.Field] = [],
            connection: String = "close"
        ) -> Outcome {
            var response = LoopbackServer.Response.text("not a WebSocket handshake: \(rule)", status: status)
            response.headers += extra + [.init("Connection", connection)]
            return .refused(response)
        }
        guard head.method == "GET" else {
            return refuse(400, "the method is \(head.method), not GET (RFC 6455, section 4.2.1)")
        }
        guard head.minorVersion >= 1 else {
            return refuse(400, "the request is HTTP/1.0, not HTTP/1.1 (RFC 6455, section 4.2.1)")
        }
        guard head.headers.count(where: { $0.hasName("Host") }) == 1 else {
            return refuse(400, "the request needs one Host field (RFC 6455, section 4.2.1)")
        }
        guard head.tokens(of: "Upgrade").contains("websocket") else {
            // A 426 names the protocol to upgrade to (RFC 9110, section 15.5.22).
            return refuse(
                426,
                "the Upgrade field does not name websocket (RFC 6455, section 4.2.1)",
                [.init("Upgrade", "websocket")],
                connection: "Upgrade, close"
            )
        }
        guard head.tokens(of: "Connection").contains("upgrade") else {
            return refuse(400, "the Connection field does not name Upgrade (RFC 6455, section 4.2.1)")
        }
        let keys = head.headers.filter { $0.hasName("Sec-WebSocket-Key") }.map(\.value)
        guard keys.count == 1, let key = keys.first, Data(base64Encoded: key)?.count == 16 else {
            let found = keys.isEmpty ? "none" : keys.map(\.debugDescription).joined(separator: ", ")
            return refuse(
                400,
                "the Sec-WebSocket-Key must be one value of 16 bytes in base64, not \(found) (RFC 6455, section 4.2.1)"
            )
        }
        let versions = head.headers.filter { $0.hasName("Sec-WebSocket-Version") }.map(\.value)
        guard versions == ["13"] else {
            let found = versions.isEmpty ? "absent" : versions.map(\.debugDescription).joined(separator: ", ")
            return refuse(
                426,
                "the Sec-WebSocket-Version is \(found), not 13 (RFC 6455, section 4.4)",
                [.init("Sec-WebSocket-Version", "13")]
            )
        }
        let hasBody =
            bodyLength > 0 || head.headers.contains { $0.hasName("Transfer-Encoding") }
            || head.tokens(of: "Content-Length").contains { $0 != "0" }
        guard !hasBody else {
            return refuse(400, "the request has a body (RFC 6455, section 4.1)")
        }
        // Subprotocol names are case-sensitive, so they are read without the lowercasing of `tokens(of:)`.
        let offered = head.headers.filter { $0.hasName("Sec-WebSocket-Protocol") }
            .flatMap { FieldList.elements(of: $0.value) }.map(String.init)
        if let invalid = offered.first(where: { !HTTPToken.isToken($0.utf8) }) {
            return refuse(400, "the subprotocol \(invalid.debugDescription) is not a token (RFC 6455, section 4.1)")
        }
        let chosen = subprotocols.first { offered.contains($0) }
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: \(WebSocketHandshake.accept(for: key))\r\n"
        if let chosen {
            text += "Sec-WebSocket-Protocol: \(chosen)\r\n"
        }
        let managed = [
            "Upgrade", "Connection", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Content-Length",
            "Transfer-Encoding",
        ]
        for header in headers where !managed.contains(where: header.hasName) {
            text += "\(header.name): \(header.value)\r\n"
        }
        return .accepted(head: Array((text + "\r\n").utf8))
    }
}
