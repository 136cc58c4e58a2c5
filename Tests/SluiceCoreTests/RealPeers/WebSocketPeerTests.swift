import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// Sluice's WebSocket client against two servers no one here wrote, Python's `websockets` and aiohttp, over TCP and
/// over TLS, with and without `permessage-deflate`.
@Suite struct WebSocketPeerTests {
    /// How the client reaches the server.
    enum Channel: String, CaseIterable, Sendable {
        case tcp
        case tls
    }

    /// A server, how it is reached, and whether the client offers `permessage-deflate`.
    struct Setup: Sendable, CustomTestStringConvertible {
        var kind: WebSocketPeer.Kind
        var channel: Channel
        var compression: Bool

        var testDescription: String { "\(kind) over \(channel)\(compression ? ", compressed" : "")" }

        /// Every server, over TCP and TLS, with and without compression.
        static let all = WebSocketPeer.Kind.allCases.flatMap { kind in
            Channel.allCases.flatMap { channel in
                [false, true].map { Setup(kind: kind, channel: channel, compression: $0) }
            }
        }
    }

    /// A server of the kind and a performer that reaches it over the channel, through the proxies given, or `nil`
    /// when the peer is missing and not required.
    static func start(
        _ kind: WebSocketPeer.Kind = .websockets,
        _ channel: Channel,
        proxies: Proxy.Settings = .none
    ) async throws -> (WebSocketPeer, SocketRequestPerformer)? {
        switch channel {
        case .tcp:
            guard let peer = try await WebSocketPeer.start(kind) else { return nil }
            return (peer, SocketRequestPerformer(configuration: .init(proxies: proxies, fallback: NoFallback())))
        case .tls:
            guard await TestPKI.shared() != nil || NginxServer.isRequired else { return nil }
            let pki = try await requirePKI()
            guard let peer = try await WebSocketPeer.start(kind, tls: (pki.good.chain, pki.good.key)) else {
                return nil
            }
            var tls = TLSConfiguration()
            tls.additionalTrustRoots = [.file(pki.root.path)]
            let performer = SocketRequestPerformer(
                configuration: .init(tls: tls, proxies: proxies, fallback: NoFallback())
            )
            try #require(performer.handlesHTTPS, "\(SocketRequestPerformer.httpsUnavailableReason ?? "")")
            return (peer, performer)
        }
    }

    /// A WebSocket open to a server, with the server and the performer: the server runs as long as it is kept.
    struct Session {
        let peer: WebSocketPeer
        let performer: SocketRequestPerformer
        let socket: WebSocket
    }

    /// A server of the setup's kind and channel, and a WebSocket to one of its paths, offering compression as the
    /// setup says; `nil` when the peer is missing and not required.
    static func open(_ path: String, _ setup: Setup) async throws -> Session? {
        guard let (peer, performer) = try await start(setup.kind, setup.channel) else { return nil }
        let socket = try await performer.webSocket(
            peer.request(path),
            configuration: .init(compression: setup.compression)
        )
        #expect(socket.compressesMessages == setup.compression)
        return Session(peer: peer, performer: performer, socket: socket)
    }

    /// Messages of at most a size, the same bytes every time, that deflate does not shrink a hundredfold (past
    /// ``WebSocket/Configuration/maximumDecompressionRatio``): binary from `sampleBytes`, which repeats only every
    /// 65,521 bytes, beyond deflate's 32 KiB window, and text of ASCII, two- and three-byte scalars in the order of
    /// those bytes, repeated every 128 KiB at most.
    static func messages(of size: Int) -> (binary: WebSocket.Message, text: WebSocket.Message) {
        let scalars: [Character] = ["a", "é", "✓"]
        var block = ""
        for byte in sampleBytes(min(size, 65_521)) {
            let scalar = scalars[Int(byte) % scalars.count]
            guard block.utf8.count + scalar.utf8.count <= min(size, 128 << 10) else { break }
            block.append(scalar)
        }
        let text = block.isEmpty ? "" : String(repeating: block, count: size / block.utf8.count)
        return (.binary(sampleBytes(size)), .text(text))
    }

    @Test(arguments: Setup.all)
    func echoesTextAndBinaryFromEmptyToMebibytes(setup: Setup) async throws {
        guard let session = try await Self.open("/echo", setup) else { return }
        let socket = session.socket
        var iterator = socket.messages.makeAsyncIterator()
        for size in [0, 1, 125, 126, 65_535, 65_536, 1 << 20, 3 << 20] {
            let (binary, text) = Self.messages(of: size)
            try await socket.send(binary)
            #expect(try await iterator.next() == binary, "\(size) bytes")
            try await socket.send(text)
            #expect(try await iterator.next() == text, "\(size) bytes of text")
        }
        await socket.close()
        #expect(try await iterator.next() == nil)
        #expect(socket.closeStatus?.code == .normalClosure)
        try await session.performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases, Channel.allCases)
    func manyMessagesInFlightWithBackPressure(kind: WebSocketPeer.Kind, channel: Channel) async throws {
        guard let (peer, performer) = try await Self.start(kind, channel) else { return }
        let socket = try await performer.webSocket(
            peer.request("/echo"),
            configuration: .init(readAhead: 64 << 10, sendBuffer: 64 << 10, compression: channel == .tls)
        )
        let payload = Data(repeating: 0x5A, count: 16 << 10)
        try await Self.echoInOrder(200, on: socket) { .binary(payload + Data("\($0)".utf8)) }
    }

    /// Sends `count` messages from a task of their own while reading their echoes, which must come back in order;
    /// then closes.
    static func echoInOrder(
        _ count: Int,
        on socket: WebSocket,
        _ message: @escaping @Sendable (Int) -> WebSocket.Message
    ) async throws {
        let sender = Task {
            for index in 0..<count {
                try await socket.send(message(index))
            }
        }
        var received = 0
        for try await echo in socket.messages {
            #expect(echo == message(received))
            received += 1
            if received == count {
                break
            }
        }
        try await sender.value
        await socket.close()
        #expect(received == count)
    }

    /// A run of small messages is gathered into few writes: each still arrives whole and in order, and `websockets`'
    /// sink counts every byte of a run sent just before the message that asks for the count.
    @Test(arguments: WebSocketPeer.Kind.allCases, Channel.allCases)
    func aRunOfSmallMessagesArrivesWholeAndInOrder(kind: WebSocketPeer.Kind, channel: Channel) async throws {
        guard let (peer, performer) = try await Self.start(kind, channel) else { return }
        let socket = try await performer.webSocket(peer.request("/echo"), configuration: .init(readAhead: 16 << 10))
        try await Self.echoInOrder(5_000, on: socket) { .text("message \($0)") }

        guard kind == .websockets else { return }
        let sink = try await performer.webSocket(peer.request("/sink"))
        var sent = 0
        for index in 0..<1_000 {
            let message = "message \(index)"
            try await sink.send(.text(message))
            sent += message.utf8.count
        }
        try await sink.send(.text("done"))
        #expect(try await sink.receive() == .text("\(sent)"))
        await sink.close()
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func echoesOverAUnixDomainSocket(kind: WebSocketPeer.Kind) async throws {
        guard let peer = try await WebSocketPeer.start(kind, onUnixSocket: true) else { return }
        let path = try #require(peer.unixSocketPath)
        let performer = SocketRequestPerformer(
            configuration: .init(unixSocketPath: path, proxies: .none, fallback: NoFallback())
        )
        let socket = try await performer.webSocket(peer.request("/echo"), configuration: .init(compression: true))
        var iterator = socket.messages.makeAsyncIterator()
        try await socket.send(.text("over a Unix socket"))
        #expect(try await iterator.next() == .text("over a Unix socket"))
        await socket.close()
        #expect(try await iterator.next() == nil)
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: Setup.all)
    func reassemblesFragmentedMessages(setup: Setup) async throws {
        guard let session = try await Self.open("/fragments", setup) else { return }
        let socket = session.socket
        var messages: [WebSocket.Message] = []
        for try await message in socket.messages {
            messages.append(message)
        }
        #expect(messages == [.text("fragmented text ✓"), .binary(Data([0, 1, 2]))])
        #expect(socket.closeStatus?.code == .normalClosure)
        try await session.performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: Setup.all)
    func answersTheServersPing(setup: Setup) async throws {
        guard let session = try await Self.open("/ping", setup) else { return }
        let socket = session.socket
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("pong received"))
        await socket.close(code: .goingAway, reason: "done")
        #expect(try await iterator.next() == nil)
        try await session.performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: Setup.all)
    func closeCodesFromTheServer(setup: Setup) async throws {
        guard let (peer, performer) = try await Self.start(setup.kind, setup.channel) else { return }
        for code in [1000, 1001, 1003, 1008, 1011, 3000, 4999] {
            let socket = try await performer.webSocket(
                peer.request("/close/\(code)"),
                configuration: .init(compression: setup.compression)
            )
            if code == 1000 || code == 1001 {
                var iterator = socket.messages.makeAsyncIterator()
                #expect(try await iterator.next() == nil)
            } else {
                let error = await #expect(throws: SluiceError.self) {
                    for try await _ in socket.messages {}
                }
                let name = WebSocket.CloseCode(rawValue: UInt16(code))
                #expect(error?.message == "the server closed the WebSocket with \(name): bye \(code)")
                #expect(error?.code == .close)
            }
            #expect(socket.closeStatus?.code?.rawValue == UInt16(code))
            #expect(socket.closeStatus?.reason == "bye \(code)")
        }
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: Setup.all)
    func aServerThatClosesWithoutAClosingFrame(setup: Setup) async throws {
        guard let session = try await Self.open("/drop", setup) else { return }
        let socket = session.socket
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("dropping"))
        let error = await #expect(throws: SluiceError.self) { try await iterator.next() }
        #expect(error?.code == .close)
        #expect(
            error?.message == "the server closed the connection without a closing frame (1006, abnormal closure)"
        )
        await #expect(throws: SluiceError.self) { try await socket.send(.text("too late")) }
        try await session.performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func handshakeCarriesTheRequestsHeadersAndSubprotocols(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        var request = peer.request("/authorization")
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        let socket = try await performer.webSocket(request)
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("Bearer secret-token"))
        await socket.close()

        let chosen = try await performer.webSocket(peer.request("/subprotocol"), protocols: ["chat.v1", "chat.v2"])
        #expect(chosen.subprotocol == "chat.v2")
        var chosenMessages = chosen.messages.makeAsyncIterator()
        #expect(try await chosenMessages.next() == .text("chat.v2"))
        await chosen.close()
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func aServerThatDoesNotUpgradeFailsTheHandshake(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.webSocket(peer.request("/forbidden"))
        }
        #expect(
            error?.message
                == "the WebSocket handshake failed: the server answered 403 Forbidden rather than 101 Switching Protocols"
        )
        #expect(error?.stage == .handshake)
        #expect(error?.request?.url == peer.request("/forbidden").url)
        #expect(error?.status == .forbidden)
        let token = await #expect(throws: SluiceError.self) {
            _ = try await performer.webSocket(peer.request("/echo"), protocols: ["not a token"])
        }
        #expect(token?.message == "the subprotocol \"not a token\" is not a token (RFC 6455, section 4.1)")
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func aHandshakeWithoutAnAnswerTimesOut(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.webSocket(
                peer.request("/slow-handshake"),
                configuration: .init(handshakeTimeout: .milliseconds(100))
            )
        }
        #expect(error?.message == "the server did not answer the WebSocket handshake within 0.1 seconds")
        #expect(error?.code == .timedOut)
        #expect(error?.stage == .handshake)
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func framesThatBreakTheProtocolFailTheReader(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let prefix = "invalid WebSocket frame from the server at byte 0"
        // A reserved opcode; then the first fragment of a text message with invalid UTF-8, which fails before the
        // message ends.
        let cases = [
            ("8300", "\(prefix): a frame with the reserved opcode 0x3, which RFC 6455 does not define (section 5.2)"),
            ("010461c0af62", "\(prefix): invalid UTF-8 at byte 1 of a text message (RFC 6455, section 8.1)"),
            (
                "8a7e0001",
                "\(prefix): a pong frame announces more than 125 bytes, the most a control frame may carry (RFC 6455, section 5.5)"
            ),
        ]
        for (hex, message) in cases {
            let socket = try await performer.webSocket(peer.request("/raw/\(hex)"))
            let error = await #expect(throws: SluiceError.self) {
                for try await _ in socket.messages {}
            }
            #expect(error?.message == message)
            #expect(error?.stage == .frame)
        }
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func keepAlivePingsFailAServerThatStopsAnswering(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let socket = try await performer.webSocket(
            peer.request("/mute"),
            configuration: .init(pingInterval: .milliseconds(20), pingTimeout: .milliseconds(100))
        )
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in socket.messages {}
        }
        #expect(error?.message == "the server did not answer a keep-alive ping within 0.1 seconds")
        #expect(error?.code == .timedOut)
        #expect(error?.stage == .frame)
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func cancellingTheOpeningTaskClosesTheConnection(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let opening = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await performer.webSocket(peer.request("/slow-handshake"))
        }
        await #expect(throws: CancellationError.self) { try await opening.value }
        let waiting = Task { try await performer.webSocket(peer.request("/slow-handshake")) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    @Test(arguments: WebSocketPeer.Kind.allCases)
    func cancellingTheReaderClosesTheConnection(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let socket = try await performer.webSocket(peer.request("/echo"))
        let reader = Task {
            for try await _ in socket.messages {}
        }
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }
}
