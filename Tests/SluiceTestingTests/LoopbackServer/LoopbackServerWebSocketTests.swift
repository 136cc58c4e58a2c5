import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Sluice's WebSocket client against the loopback server's WebSocket routes: each scripted step, each fault, and the
/// server's own checks of the client's handshake and frames.
@Suite("LoopbackServer: WebSocket")
struct LoopbackServerWebSocketTests {
    /// A performer that goes straight to loopback, whatever proxies the environment names.
    static func performer() -> SocketRequestPerformer {
        SocketRequestPerformer(configuration: .init(proxies: .none))
    }

    /// A server with one WebSocket route at `/ws`.
    static func server(_ response: LoopbackServer.Response) throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("GET", "/ws", response: response)
        return server
    }

    /// Waits until the server has closed every connection, so that everything the client sent is recorded.
    static func settled(_ server: LoopbackServer) async throws {
        try await server.openConnectionsGauge.wait { $0 == 0 }
    }

    /// Checks the error's message, and that its rendering leads with it.
    static func expectMessage(
        _ error: SluiceError?,
        _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error?.message == message, sourceLocation: sourceLocation)
        let firstLine = error.map { String(describing: $0) }?.split(separator: "\n").first
        #expect(firstLine.map(String.init) == "error: " + message, sourceLocation: sourceLocation)
    }

    // MARK: - Scripted steps

    @Test func sendsEveryKindOfMessageAndReceivesTheClients() async throws {
        let large = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try Self.server(
            .webSocket([
                .text("hello"),
                .binary(Data([1, 2, 3])),
                .fragmented(text: "héllo wörld", frames: 4),
                .fragmented(binary: large, frames: 3),
                .receive,
                // After the client's message, so that its pong comes after it, and before its closing frame.
                .ping(Data("are you there".utf8)),
                .pong(Data("unasked".utf8)),
                .text("bye"),
                .close(.normalClosure, reason: "done"),
            ])
        )
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: server.url("/ws")))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("hello"))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        #expect(try await messages.next() == .text("héllo wörld"))
        #expect(try await messages.next() == .binary(large))
        try await socket.send(.text("from the client"))
        #expect(try await messages.next() == .text("bye"))
        #expect(try await messages.next() == nil)
        #expect(socket.closeStatus?.code == .normalClosure)
        #expect(socket.closeStatus?.reason == "done")
        try await Self.settled(server)
        #expect(
            server.receivedWebSocketEvents == [
                .text("from the client"), .pong(Data("are you there".utf8)), .close(code: .normalClosure, reason: ""),
            ]
        )
        #expect(server.receivedRequests.map(\.path) == ["/ws"])
        #expect(server.receivedRequests.first?.header("Sec-WebSocket-Version") == "13")
    }

    @Test func echoesUntilTheClientCloses() async throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: server.url("/ws")))
        var messages = socket.messages.makeAsyncIterator()
        let payload = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 3) })
        try await socket.send(.text("ping pong"))
        try await socket.send(.binary(payload))
        #expect(try await messages.next() == .text("ping pong"))
        #expect(try await messages.next() == .binary(payload))
        await socket.close(code: .goingAway, reason: "done")
        #expect(socket.closeStatus?.code == .goingAway)
        try await Self.settled(server)
        #expect(
            server.receivedWebSocketEvents == [
                .text("ping pong"), .binary(payload), .close(code: .goingAway, reason: "done"),
            ]
        )
    }

    @Test func awaitsTheClientsClose() async throws {
        let server = try Self.server(.webSocket([.text("ready"), .awaitClose]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: server.url("/ws")))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("ready"))
        try await socket.send(.binary(Data([9])))
        await socket.close()
        #expect(socket.closeStatus?.code == .normalClosure)
        try await Self.settled(server)
        #expect(server.receivedWebSocketEvents == [.binary(Data([9])), .close(code: .normalClosure, reason: "")])
    }

    @Test func closesWithAnApplicationsCodeOrWithoutOne() async throws {
        let custom = try Self.server(.webSocket([.close(WebSocket.CloseCode(rawValue: 4000), reason: "custom")]))
        defer { custom.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: custom.url("/ws")))
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in socket.messages {}
        }
        Self.expectMessage(error, "the server closed the WebSocket with 4000: custom")
        #expect(error?.code == .close)

        let silent = try Self.server(.webSocket([.close(nil)]))
        defer { silent.stop() }
        let quiet = try await Self.performer().webSocket(URLRequest(url: silent.url("/ws")))
        var messages = quiet.messages.makeAsyncIterator()
        #expect(try await messages.next() == nil)
        #expect(quiet.closeStatus.map { $0.code == nil && $0.reason.isEmpty } == true)
        try await Self.settled(silent)
        #expect(silent.receivedWebSocketEvents == [.close(code: nil, reason: "")])
    }

    @Test func choosesTheFirstSubprotocolItSpeaksThatTheClientOffers() async throws {
        let server = try Self.server(.webSocket([.close()], subprotocols: ["chat.v2", "chat.v1"]))
        defer { server.stop() }
        let performer = Self.performer()
        let both = try await performer.webSocket(URLRequest(url: server.url("/ws")), protocols: ["chat.v1", "chat.v2"])
        #expect(both.subprotocol == "chat.v2")
        let old = try await performer.webSocket(URLRequest(url: server.url("/ws")), protocols: ["chat.v1"])
        #expect(old.subprotocol == "chat.v1")
        let none = try await performer.webSocket(URLRequest(url: server.url("/ws")), protocols: ["other"])
        #expect(none.subprotocol == nil)
    }

    @Test func sendsTheRoutesHeadersWithTheHandshakeAndHonoursAFault() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/ws", response: .webSocket([.close()]).addingHeader("Set-Cookie", "session=1"))
        server.route("/broken", response: .webSocket([.close()]).injecting(.raw(["HTTP/1.1 403 Forbidden\r\n\r\n"])))
        let client = try RawClient(port: server.port)
        try client.send(Self.handshake())
        let head = try client.readHead()
        #expect(head.status == 101)
        #expect(head.header("Set-Cookie") == "session=1")

        let error = await #expect(throws: SluiceError.self) {
            _ = try await Self.performer().webSocket(URLRequest(url: server.url("/broken")))
        }
        Self.expectMessage(
            error,
            "the WebSocket handshake failed: the server answered 403 Forbidden rather than 101 Switching Protocols"
        )
    }

    // MARK: - Faults

    /// A fault, and what the client must say of it and close with.
    struct FaultCase: Sendable, CustomTestStringConvertible {
        let step: LoopbackServer.Response.WebSocketStep
        let message: String
        let code: WebSocket.CloseCode
        var testDescription: String { step.description }
    }

    static let faults = [
        FaultCase(
            step: .maskedFrame(text: "hi"),
            message:
                "invalid WebSocket frame from the server at byte 0: the server masked a frame, which only a client may do (RFC 6455, section 5.1)",
            code: .protocolError
        ),
        FaultCase(
            step: .invalidUTF8(),
            message:
                "invalid WebSocket frame from the server at byte 0: invalid UTF-8 at byte 4 of a text message (RFC 6455, section 8.1)",
            code: .invalidFramePayloadData
        ),
        FaultCase(
            step: .invalidUTF8(midFragment: true),
            message:
                "invalid WebSocket frame from the server at byte 8: invalid UTF-8 at byte 9 of a text message (RFC 6455, section 8.1)",
            code: .invalidFramePayloadData
        ),
        FaultCase(
            step: .oversizedFrame(announcing: 1_025),
            message:
                "invalid WebSocket frame from the server at byte 0: a binary frame of 1025 bytes, larger than the limit of 1024 bytes",
            code: .messageTooBig
        ),
        FaultCase(
            step: .oversizedFrame(announcing: 1 << 40),
            message:
                "invalid WebSocket frame from the server at byte 0: a binary frame of 1099511627776 bytes, larger than the limit of 1024 bytes",
            code: .messageTooBig
        ),
        FaultCase(
            step: .reservedBits(0x20),
            message:
                "invalid WebSocket frame from the server at byte 0: the frame sets RSV2, which no negotiated extension defines (RFC 6455, section 5.2)",
            code: .protocolError
        ),
        FaultCase(
            step: .reservedBits(0x50),
            message:
                "invalid WebSocket frame from the server at byte 0: the frame sets RSV1 and RSV3, which no negotiated extension defines (RFC 6455, section 5.2)",
            code: .protocolError
        ),
        FaultCase(
            step: .reservedOpcode(0x3),
            message:
                "invalid WebSocket frame from the server at byte 0: a frame with the reserved opcode 0x3, which RFC 6455 does not define (section 5.2)",
            code: .protocolError
        ),
        FaultCase(
            step: .reservedOpcode(0xB),
            message:
                "invalid WebSocket frame from the server at byte 0: a frame with the reserved opcode 0xB, which RFC 6455 does not define (section 5.2)",
            code: .protocolError
        ),
        FaultCase(
            step: .close(WebSocket.CloseCode(rawValue: 1005)),
            message:
                "invalid WebSocket frame from the server at byte 0: a close frame with the code 1005, which a peer may not send (RFC 6455, section 7.4)",
            code: .protocolError
        ),
        FaultCase(
            step: .raw(Data([0x89, 0x7E, 0x00, 0x80])),
            message:
                "invalid WebSocket frame from the server at byte 0: a ping frame announces more than 125 bytes, the most a control frame may carry (RFC 6455, section 5.5)",
            code: .protocolError
        ),
    ]

    @Test(arguments: faults)
    func theClientRefusesAFaultAndClosesWithItsCode(fault: FaultCase) async throws {
        let server = try Self.server(.webSocket([fault.step, .awaitClose]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(
            URLRequest(url: server.url("/ws")),
            configuration: .init(maximumFrameSize: 1_024)
        )
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in socket.messages {}
        }
        Self.expectMessage(error, fault.message)
        #expect(error?.code == .frame)
        try await Self.settled(server)
        #expect(server.receivedWebSocketEvents == [.close(code: fault.code, reason: "")])
    }

    @Test func anAbruptCloseIsAnAbnormalClosure() async throws {
        let server = try Self.server(.webSocket([.text("one"), .closeAbruptly, .text("never sent")]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: server.url("/ws")))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("one"))
        let error = await #expect(throws: SluiceError.self) { try await messages.next() }
        Self.expectMessage(error, "the server closed the connection without a closing frame (1006, abnormal closure)")
        #expect(error?.code == .close)
    }

    @Test func aScriptThatEndsClosesTheConnectionInTheMiddleOfAMessage() async throws {
        let server = try Self.server(.webSocket([.raw(Data([0x81, 0x05, 0x68]))]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(URLRequest(url: server.url("/ws")))
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in socket.messages {}
        }
        Self.expectMessage(
            error,
            "the server closed the connection without a closing frame (1006, abnormal closure), in the middle of a frame"
        )
    }

    // MARK: - The server's checks

    /// A handshake request, valid unless the arguments change it: the key is RFC 6455's example.
    static func handshake(
        requestLine: String = "GET /ws HTTP/1.1",
        replacing fields: [String: String?] = [:],
        extra: String = ""
    ) -> String {
        var head: [(String, String)] = [
            ("Host", "test"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
        ]
        for (name, value) in fields {
            head.removeAll { $0.0 == name }
            if let value {
                head.append((name, value))
            }
        }
        return requestLine + "\r\n" + head.map { "\($0): \($1)\r\n" }.joined() + extra + "\r\n"
    }

    @Test func answersAValidHandshakeWithTheAcceptKeyOfRFC6455() throws {
        let server = try Self.server(.webSocket([.close()]))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(Self.handshake(replacing: ["Connection": "keep-alive, Upgrade", "Upgrade": "WebSocket"]))
        let head = try client.readHead()
        #expect(head.status == 101)
        #expect(head.header("Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(head.header("Upgrade") == "websocket")
        #expect(head.header("Connection") == "Upgrade")
        #expect(head.header("Sec-WebSocket-Protocol") == nil)
        #expect(try client.readBytes(4) == [0x88, 0x02, 0x03, 0xE8])
    }

    /// A flawed handshake, and the status and rule the server answers with.
    struct BadHandshake: Sendable, CustomTestStringConvertible {
        let request: String
        let status: Int
        let rule: String
        var testDescription: String { rule }
    }

    static let badHandshakes = [
        BadHandshake(
            request: handshake(requestLine: "POST /ws HTTP/1.1"),
            status: 400,
            rule: "the method is POST, not GET (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(requestLine: "GET /ws HTTP/1.0"),
            status: 400,
            rule: "the request is HTTP/1.0, not HTTP/1.1 (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Host": nil]),
            status: 400,
            rule: "the request needs one Host field (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Upgrade": nil]),
            status: 426,
            rule: "the Upgrade field does not name websocket (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Upgrade": "h2c"]),
            status: 426,
            rule: "the Upgrade field does not name websocket (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Connection": "keep-alive"]),
            status: 400,
            rule: "the Connection field does not name Upgrade (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Sec-WebSocket-Key": nil]),
            status: 400,
            rule: "the Sec-WebSocket-Key must be one value of 16 bytes in base64, not none (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Sec-WebSocket-Key": "c2hvcnQ="]),
            status: 400,
            rule:
                "the Sec-WebSocket-Key must be one value of 16 bytes in base64, not \"c2hvcnQ=\" (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(extra: "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n"),
            status: 400,
            rule:
                "the Sec-WebSocket-Key must be one value of 16 bytes in base64, not \"dGhlIHNhbXBsZSBub25jZQ==\", \"AAAAAAAAAAAAAAAAAAAAAA==\" (RFC 6455, section 4.2.1)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Sec-WebSocket-Version": "8"]),
            status: 426,
            rule: "the Sec-WebSocket-Version is \"8\", not 13 (RFC 6455, section 4.4)"
        ),
        BadHandshake(
            request: handshake(replacing: ["Sec-WebSocket-Version": nil]),
            status: 426,
            rule: "the Sec-WebSocket-Version is absent, not 13 (RFC 6455, section 4.4)"
        ),
        BadHandshake(
            request: handshake(extra: "Content-Length: 2\r\n") + "hi",
            status: 400,
            rule: "the request has a body (RFC 6455, section 4.1)"
        ),
        BadHandshake(
            request: handshake(extra: "Sec-WebSocket-Protocol: chat, a b\r\n"),
            status: 400,
            rule: "the subprotocol \"a b\" is not a token (RFC 6455, section 4.1)"
        ),
    ]

    @Test(arguments: badHandshakes)
    func refusesAFlawedHandshake(handshake: BadHandshake) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/ws", response: .webSocket([.close()]))
        let client = try RawClient(port: server.port)
        try client.send(handshake.request)
        let response = try client.readResponse()
        #expect(response.status == handshake.status)
        #expect(response.bodyText == "not a WebSocket handshake: " + handshake.rule)
        #expect(response.header("Connection")?.lowercased().contains("close") == true)
        if handshake.status == 426 {
            let named = response.header("Upgrade") == "websocket" || response.header("Sec-WebSocket-Version") == "13"
            #expect(named)
        }
        #expect(client.readToEnd().isEmpty)
        #expect(server.receivedWebSocketEvents.isEmpty)
    }

    /// Reads one frame from the server on a raw connection: its first byte and its payload.
    static func readFrame(_ client: RawClient) throws -> (first: UInt8, payload: [UInt8]) {
        let header = try client.readBytes(2)
        #expect(header[1] & 0x80 == 0, "a server's frame is never masked")
        let length = Int(header[1] & 0x7F)
        try #require(length < 126)
        return (header[0], try client.readBytes(length))
    }

    /// A client's frame on a raw connection, masked with a fixed key.
    static func maskedFrame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let key: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        return [first, 0x80 | UInt8(payload.count)] + key + payload.enumerated().map { $1 ^ key[$0 & 3] }
    }

    @Test func refusesAnUnmaskedClientFrameWith1002() throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(Self.handshake())
        #expect(try client.readHead().status == 101)
        try client.send([0x81, 0x02] + Array("hi".utf8))
        let close = try Self.readFrame(client)
        #expect(close.first == 0x88)
        #expect(close.payload.prefix(2) == [0x03, 0xEA])
        let rule =
            "invalid WebSocket frame from the client at byte 0: the client sent an unmasked frame, which a client must mask (RFC 6455, section 5.1)"
        let reason = String(decoding: close.payload.dropFirst(2), as: UTF8.self)
        #expect(!reason.isEmpty && rule.hasPrefix(reason))
        #expect(client.readToEnd().isEmpty)
        #expect(server.receivedWebSocketEvents == [.rejected(code: .protocolError, reason: rule)])
    }

    @Test func refusesInvalidUTF8FromTheClientWith1007() throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(Self.handshake())
        #expect(try client.readHead().status == 101)
        try client.send(Self.maskedFrame(0x01, Array("ok ".utf8)) + Self.maskedFrame(0x80, [0xED, 0xA0, 0x80]))
        let close = try Self.readFrame(client)
        #expect(close.first == 0x88)
        #expect(close.payload.prefix(2) == [0x03, 0xEF])
        #expect(client.readToEnd().isEmpty)
        #expect(
            server.receivedWebSocketEvents == [
                .rejected(
                    code: .invalidFramePayloadData,
                    reason:
                        "invalid WebSocket frame from the client at byte 9: invalid UTF-8 at byte 4 of a text message (RFC 6455, section 8.1)"
                )
            ]
        )
    }

    /// A client's frame that breaks a rule, and the code and rule the server closes with.
    struct BrokenClientFrame: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let code: WebSocket.CloseCode
        let rule: String
        var testDescription: String { rule }
    }

    static let brokenClientFrames = [
        BrokenClientFrame(
            bytes: maskedFrame(0xA1, Array("x".utf8)),
            code: .protocolError,
            rule: "the frame sets RSV2, which no negotiated extension defines (RFC 6455, section 5.2)"
        ),
        BrokenClientFrame(
            bytes: maskedFrame(0xC1, Array("x".utf8)),
            code: .protocolError,
            rule: "the frame sets RSV1, which no negotiated extension defines (RFC 6455, section 5.2)"
        ),
        BrokenClientFrame(
            bytes: maskedFrame(0x83, []),
            code: .protocolError,
            rule: "a frame with the reserved opcode 0x3, which RFC 6455 does not define (section 5.2)"
        ),
        BrokenClientFrame(
            bytes: maskedFrame(0x09, []),
            code: .protocolError,
            rule: "a fragmented ping frame: control frames are never fragmented (RFC 6455, section 5.5)"
        ),
        BrokenClientFrame(
            bytes: maskedFrame(0x80, Array("x".utf8)),
            code: .protocolError,
            rule: "a continuation frame with no message to continue (RFC 6455, section 5.4)"
        ),
        BrokenClientFrame(
            bytes: maskedFrame(0x88, [0x03, 0xED]),
            code: .protocolError,
            rule: "a close frame with the code 1005, which a peer may not send (RFC 6455, section 7.4)"
        ),
        BrokenClientFrame(
            bytes: [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0x00, 0x00, 0x01],
            code: .messageTooBig,
            rule: "a binary frame of 16777217 bytes, larger than the limit of 16777216 bytes"
        ),
    ]

    @Test(arguments: brokenClientFrames)
    func refusesABrokenClientFrameWithItsCode(frame: BrokenClientFrame) throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(Self.handshake())
        #expect(try client.readHead().status == 101)
        try client.send(frame.bytes)
        let close = try Self.readFrame(client)
        #expect(close.first == 0x88)
        #expect(close.payload.prefix(2) == [UInt8(frame.code.rawValue >> 8), UInt8(frame.code.rawValue & 0xFF)])
        #expect(client.readToEnd().isEmpty)
        let rule = "invalid WebSocket frame from the client at byte 0: " + frame.rule
        #expect(server.receivedWebSocketEvents == [.rejected(code: frame.code, reason: rule)])
    }

    @Test func declinesCompressionAndStillEchoes() async throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let socket = try await Self.performer().webSocket(
            URLRequest(url: server.url("/ws")),
            configuration: .init(compression: true)
        )
        #expect(!socket.compressesMessages)
        try await socket.send(.text("plain"))
        #expect(try await socket.receive() == .text("plain"))
        await socket.close()
        try await Self.settled(server)
        #expect(server.receivedWebSocketEvents == [.text("plain"), .close(code: .normalClosure, reason: "")])
    }

    @Test func readsFramesThatCameWithTheHandshakeAndAnswersPings() throws {
        let server = try Self.server(.webSocket([.echo]))
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let frames = Self.maskedFrame(0x89, [7]) + Self.maskedFrame(0x81, Array("early".utf8))
        try client.send(Array(Self.handshake().utf8) + frames)
        #expect(try client.readHead().status == 101)
        let pong = try Self.readFrame(client)
        #expect(pong.first == 0x8A && pong.payload == [7])
        let echo = try Self.readFrame(client)
        #expect(echo.first == 0x81 && echo.payload == Array("early".utf8))
        try client.send(Self.maskedFrame(0x88, [0x03, 0xE8] + Array("bye".utf8)))
        let close = try Self.readFrame(client)
        #expect(close.first == 0x88 && close.payload == [0x03, 0xE8])
        #expect(client.readToEnd().isEmpty)
        #expect(
            server.receivedWebSocketEvents == [
                .ping(Data([7])), .text("early"), .close(code: .normalClosure, reason: "bye"),
            ]
        )
    }
}
