import Foundation

/// A WebSocket's opening handshake (RFC 6455, section 4): the GET request that asks to switch protocols, and the
/// checks on the server's answer.
///
/// I/O-free: it makes the request head's bytes and judges a parsed response head.
package struct WebSocketHandshake {
    /// The request head's bytes, ending with the empty line.
    package let bytes: Data
    /// The `Sec-WebSocket-Key` sent: 16 random bytes in base64.
    package let key: String
    /// The subprotocols offered, in order of preference.
    package let protocols: [String]
    /// Whether `permessage-deflate` is offered.
    package let offersCompression: Bool

    /// What the server agreed to.
    package struct Agreement: Equatable {
        /// The subprotocol it chose, if any.
        package var subprotocol: String?
        /// The `permessage-deflate` parameters, when it accepted the extension.
        package var deflate: PerMessageDeflate?
    }

    /// Makes the handshake request: the request's own URL and headers (`ws` and `wss` go as `http` and `https`), and
    /// the fields of the handshake, which replace any of the request's by the same names.
    ///
    /// - Parameters:
    ///   - request: The request, with a `ws://` or `wss://` URL (`http` and `https` are taken too); GET, no body.
    ///   - protocols: The subprotocols to offer, if any; each a token.
    ///   - target: Where it goes.
    ///   - key: The 16 bytes of the key; random for every handshake.
    ///   - offersCompression: Whether to offer `permessage-deflate`.
    /// - Throws: ``SluiceError`` of the handshake stage for a request that cannot open a WebSocket.
    package init(
        _ request: URLRequest,
        protocols: [String],
        target: Origin,
        key: [UInt8],
        offersCompression: Bool = false
    ) throws(SluiceError) {
        let method = request.httpMethod ?? "GET"
        guard method == "GET", request.httpBody == nil, request.httpBodyStream == nil else {
            throw SluiceError(
                .handshake,
                message:
                    "a WebSocket opens with a GET request without a body, not \(method)\(request.httpBody != nil || request.httpBodyStream != nil ? " with a body" : "") (RFC 6455, section 4.1)",
                request: request
            )
        }
        if let invalid = protocols.first(where: { !HTTPToken.isToken($0.utf8) }) {
            throw SluiceError(
                .handshake,
                message: "the subprotocol \"\(invalid)\" is not a token (RFC 6455, section 4.1)",
                request: request
            )
        }
        let key = Data(key).base64EncodedString()
        var sent = request
        for name in [
            "Upgrade", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol",
            "Sec-WebSocket-Extensions",
        ] {
            sent.setValue(nil, forHTTPHeaderField: name)
        }
        sent.setValue("websocket", forHTTPHeaderField: "Upgrade")
        sent.setValue(key, forHTTPHeaderField: "Sec-WebSocket-Key")
        sent.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        if !protocols.isEmpty {
            sent.setValue(protocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        if offersCompression {
            sent.setValue(PerMessageDeflate.offer, forHTTPHeaderField: "Sec-WebSocket-Extensions")
        }
        var head: RequestHead
        do {
            head = try RequestHead(sent, target: target)
        } catch {
            throw SluiceError(.handshake, message: error.message, request: request, underlyingError: error)
        }
        // The head leaves out the request's Connection field, which is the transport's: this one asks to upgrade.
        head.bytes.removeLast(2)
        head.bytes.append(contentsOf: "Connection: Upgrade\r\n\r\n".utf8)
        self.bytes = head.bytes
        self.key = key
        self.protocols = protocols
        self.offersCompression = offersCompression
    }

    /// The `Sec-WebSocket-Accept` value that proves a server read a key: the base64 SHA-1 of the key and RFC 6455's
    /// GUID.
    package static func accept(for key: String) -> String {
        Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// Checks the server's answer.
    ///
    /// - Parameter head: The response head.
    /// - Returns: The subprotocol the server chose, if any, and the extension it accepted.
    /// - Throws: ``SluiceError`` of the handshake stage naming what the answer lacked or got wrong.
    package func verify(_ head: ParsedHead) throws(SluiceError) -> Agreement {
        func values(_ name: String) -> [String] {
            head.fields.filter { Header.namesMatch($0.name, name) }.map(\.value)
        }
        func elements(_ name: String, quoting: FieldList.Quoting = .none) -> [String] {
            values(name).flatMap { FieldList.elements(of: $0, quoting: quoting) }.map(String.init)
        }
        func failure(_ rule: String) -> SluiceError {
            SluiceError(.handshake, message: "the WebSocket handshake failed: \(rule)")
        }
        guard head.status == 101 else {
            throw failure(Self.refusal(HTTPStatus(code: head.status)))
        }
        guard elements("Upgrade").contains(where: { Header.asciiLowercased($0) == "websocket" }) else {
            throw failure(
                "the 101 response's Upgrade field is \(Self.quoted(values("Upgrade"))), not websocket (RFC 6455, section 4.1)"
            )
        }
        guard elements("Connection").contains(where: { Header.asciiLowercased($0) == "upgrade" }) else {
            throw failure(
                "the 101 response's Connection field is \(Self.quoted(values("Connection"))), without upgrade (RFC 6455, section 4.1)"
            )
        }
        let expected = Self.accept(for: key)
        let accepts = values("Sec-WebSocket-Accept")
        guard accepts == [expected] else {
            throw failure(
                "the 101 response's Sec-WebSocket-Accept is \(Self.quoted(accepts)), not \"\(expected)\" for the key sent (RFC 6455, section 4.1)"
            )
        }
        var agreement = Agreement()
        let extensions = elements("Sec-WebSocket-Extensions", quoting: .quotedStrings)
        if !extensions.isEmpty {
            guard offersCompression else {
                throw failure(
                    "the server chose the extensions \(Self.quoted(values("Sec-WebSocket-Extensions"))), which the client did not offer (RFC 6455, section 4.1)"
                )
            }
            do {
                agreement.deflate = try PerMessageDeflate(answer: extensions.joined(separator: ", "))
            } catch {
                throw failure(error.reason)
            }
        }
        let chosen = elements("Sec-WebSocket-Protocol")
        guard let subprotocol = chosen.first else { return agreement }
        guard chosen.count == 1, protocols.contains(subprotocol) else {
            let offered =
                protocols.isEmpty ? "none was offered" : "the client offered \(protocols.joined(separator: ", "))"
            throw failure(
                "the server chose the subprotocol \(Self.quoted(values("Sec-WebSocket-Protocol"))), but \(offered) (RFC 6455, section 4.1)"
            )
        }
        agreement.subprotocol = subprotocol
        return agreement
    }

    /// What a message says of a server that answered a handshake with another status than 101.
    ///
    /// - Parameter status: The server's status.
    /// - Returns: The clause, such as `the server answered 403 Forbidden rather than 101 Switching Protocols`.
    package static func refusal(_ status: HTTPStatus) -> String {
        "the server answered \(status) rather than 101 Switching Protocols"
    }

    /// A field's values as a message quotes them: `"h2c"`, or `none` when it is absent.
    private static func quoted(_ values: [String]) -> String {
        values.isEmpty ? "absent" : "\"" + values.joined(separator: ", ") + "\""
    }
}
