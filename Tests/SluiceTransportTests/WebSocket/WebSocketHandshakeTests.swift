import Foundation
import Testing

@testable import SluiceTransport

/// The opening handshake as a pure function: the request's bytes, and each way an answer can fail the checks.
@Suite struct WebSocketHandshakeTests {
    static func origin() throws -> Origin {
        let url = try #require(URL(string: "http://example.com:8080/"))
        return try #require(Origin(url, unixSocketPath: nil))
    }
    static let key = Array(UInt8(1)...16)

    static func handshake(protocols: [String] = ["chat.v1", "chat.v2"]) throws -> WebSocketHandshake {
        var request = URLRequest(url: try #require(URL(string: "ws://example.com:8080/chat?room=7")))
        request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        request.setValue("keep-alive", forHTTPHeaderField: "Connection")
        request.setValue("h2c", forHTTPHeaderField: "Upgrade")
        return try WebSocketHandshake(request, protocols: protocols, target: try origin(), key: key)
    }

    /// A 101 head with the right fields, changed as a test says.
    static func head(
        status: Int = 101,
        _ change: (inout [String: String]) -> Void = { _ in }
    ) -> ParsedHead {
        var fields = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: Data(key).base64EncodedString()),
        ]
        change(&fields)
        return ParsedHead(
            status: status,
            fields: fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            keepAlive: false
        )
    }

    /// URLRequest spells the field names its own way (`Sec-Websocket-Key`); names are case-insensitive.
    @Test func requestCarriesTheHandshakeAndTheRequestsOwnFields() throws {
        let text = String(decoding: try Self.handshake().bytes, as: UTF8.self)
        #expect(
            text == """
                GET /chat?room=7 HTTP/1.1\r
                Host: example.com:8080\r
                User-Agent: Sluice\r
                Authorization: Bearer token\r
                Sec-Websocket-Key: AQIDBAUGBwgJCgsMDQ4PEA==\r
                Sec-Websocket-Protocol: chat.v1, chat.v2\r
                Sec-Websocket-Version: 13\r
                Upgrade: websocket\r
                Connection: Upgrade\r
                \r

                """
        )
    }

    @Test func aValidAnswerGivesTheChosenSubprotocol() throws {
        let handshake = try Self.handshake()
        #expect(try handshake.verify(Self.head()) == .init())
        #expect(try handshake.verify(Self.head { $0["Sec-WebSocket-Protocol"] = "chat.v2" }).subprotocol == "chat.v2")
        #expect(
            try handshake.verify(
                Self.head {
                    $0["Upgrade"] = "WebSocket"
                    $0["Connection"] = "keep-alive, upgrade"
                }
            ) == .init()
        )
    }

    @Test func answersThatFailTheChecks() throws {
        let handshake = try Self.handshake()
        func failure(_ head: ParsedHead) -> String? {
            let error = #expect(throws: SluiceError.self) { try handshake.verify(head) }
            #expect(error?.stage == .handshake)
            return error?.message.replacingOccurrences(of: "the WebSocket handshake failed: ", with: "")
        }
        #expect(failure(Self.head(status: 200)) == "the server answered 200 OK rather than 101 Switching Protocols")
        #expect(
            failure(Self.head { $0["Upgrade"] = nil })
                == "the 101 response's Upgrade field is absent, not websocket (RFC 6455, section 4.1)"
        )
        // Compared as ASCII: a Kelvin sign is not a k to a server reading the bytes.
        #expect(
            failure(Self.head { $0["Upgrade"] = "websoc\u{212A}et" })
                == "the 101 response's Upgrade field is \"websoc\u{212A}et\", not websocket (RFC 6455, section 4.1)"
        )
        #expect(
            failure(Self.head { $0["Connection"] = "keep-alive" })
                == "the 101 response's Connection field is \"keep-alive\", without upgrade (RFC 6455, section 4.1)"
        )
        let expected = WebSocketHandshake.accept(for: "AQIDBAUGBwgJCgsMDQ4PEA==")
        #expect(
            failure(Self.head { $0["Sec-WebSocket-Accept"] = "wrong" })
                == "the 101 response's Sec-WebSocket-Accept is \"wrong\", not \"\(expected)\" for the key sent (RFC 6455, section 4.1)"
        )
        #expect(
            failure(Self.head { $0["Sec-WebSocket-Extensions"] = "permessage-deflate" })
                == "the server chose the extensions \"permessage-deflate\", which the client did not offer (RFC 6455, section 4.1)"
        )
        #expect(
            failure(Self.head { $0["Sec-WebSocket-Protocol"] = "chat.v3" })
                == "the server chose the subprotocol \"chat.v3\", but the client offered chat.v1, chat.v2 (RFC 6455, section 4.1)"
        )
        let none = try Self.handshake(protocols: [])
        let error = #expect(throws: SluiceError.self) {
            try none.verify(Self.head { $0["Sec-WebSocket-Protocol"] = "chat.v1" })
        }
        #expect(
            error?.message
                == "the WebSocket handshake failed: the server chose the subprotocol \"chat.v1\", but none was offered (RFC 6455, section 4.1)"
        )
    }

    @Test func requestsThatCannotOpenAWebSocket() throws {
        var post = URLRequest(url: try #require(URL(string: "ws://example.com/")))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let error = #expect(throws: SluiceError.self) {
            try WebSocketHandshake(post, protocols: [], target: try Self.origin(), key: Self.key)
        }
        #expect(
            error?.message
                == "a WebSocket opens with a GET request without a body, not POST with a body (RFC 6455, section 4.1)"
        )
        #expect(error?.code == .handshake)
    }
}
