public import Foundation
public import SluiceCore

extension MockClient {
    /// A scripted WebSocket server for tests, with no network: what it sends, step by step, and a record of what the
    /// client sent and how it closed.
    ///
    /// Answer a request with it through ``MockClient`` (``MockClient/Response/webSocket(_:)``) or ``StubPerformer``
    /// (``StubPerformer/init(webSocket:)``); each handshake opens a `WebSocket` that plays the script from its start
    /// as the client reads:
    ///
    /// ```swift
    /// let server = MockClient.WebSocketScript([.text("welcome"), .awaitMessage, .text("bye"), .close(.normalClosure)])
    /// let mock = MockClient()
    /// mock.stub(ChatRoom.self, .webSocket(server))
    ///
    /// let socket = try await mock.webSocket(ChatRoom(id: 7))
    /// ```
    ///
    /// The steps play in order, each when the client asks for its next message: a message is handed to the reader, a
    /// pause waits on the script's clock, ``Step/awaitMessage`` waits until the client has sent one more message, a close
    /// ends the messages (normally for 1000, 1001 or no code; with a `SluiceError` of the `close`
    /// code for another, as a real server's would), and a failure ends them with its error. After the last step the
    /// server waits for the client to close. ``init(_:subprotocols:replies:clock:)`` can also answer each message the
    /// client sends, as an echo server does (``echo(subprotocols:)``); answers are read before the next step.
    ///
    /// ``sentMessages`` and ``clientClose`` record the client's side across every handshake, for the test to check.
    public final class WebSocketScript: Sendable {
        /// What the scripted server does next.
        public enum Step: Sendable {
            /// Sends a message.
            case message(WebSocket.Message)
            /// Waits this long on the script's clock.
            case pause(Duration)
            /// Waits until the client has sent one more message than the earlier such steps waited for.
            case awaitMessage
            /// Sends a closing frame with this code and reason, and closes.
            case close(WebSocket.CloseCode?, reason: String = "")
            /// Ends the connection with this error, as a dropped connection or a broken frame would.
            case failure(SluiceError)

            /// Sends a text message.
            ///
            /// - Parameter text: The text.
            /// - Returns: The step.
            public static func text(_ text: String) -> Step { .message(.text(text)) }

            /// Sends a binary message.
            ///
            /// - Parameter data: The bytes.
            /// - Returns: The step.
            public static func binary(_ data: Data) -> Step { .message(.binary(data)) }
        }

        /// The steps, in order.
        public let steps: [Step]
        /// The subprotocols the scripted server speaks: it chooses the first of them that the client offers.
        public let subprotocols: [String]
        /// The clock pauses are measured on.
        public let clock: any Clock<Duration>
        private let replies: (@Sendable (WebSocket.Message) -> [WebSocket.Message])?
        private let record = Locked(Record())

        private struct Record {
            var sent: [WebSocket.Message] = []
            var close: (code: WebSocket.CloseCode, reason: String)?
            var handshakes = 0
        }

        /// Creates a script.
        ///
        /// - Parameters:
        ///   - steps: What the server does, in order.
        ///   - subprotocols: The subprotocols the server speaks; none by default.
        ///   - replies: The messages the server answers each client message with, read before the next step; none by
        ///     default.
        ///   - clock: The clock pauses are measured on; a `ContinuousClock` by default.
        public init(
            _ steps: [Step],
            subprotocols: [String] = [],
            replies: (@Sendable (WebSocket.Message) -> [WebSocket.Message])? = nil,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.steps = steps
            self.subprotocols = subprotocols
            self.replies = replies
            self.clock = clock
        }

        /// A server that sends every message back as it came, until the client closes.
        ///
        /// - Parameter subprotocols: The subprotocols the server speaks; none by default.
        /// - Returns: The script.
        public static func echo(subprotocols: [String] = []) -> MockClient.WebSocketScript {
            MockClient.WebSocketScript([], subprotocols: subprotocols, replies: { [$0] })
        }

        /// The messages the client sent, in order, across every handshake.
        public var sentMessages: [WebSocket.Message] { record.withLock { $0.sent } }

        /// The code and reason of the client's closing frame, once it has closed (1001, going away, when it released the
        /// socket or cancelled its reader without closing).
        public var clientClose: (code: WebSocket.CloseCode, reason: String)? { record.withLock { $0.close } }

        /// How many handshakes the script has answered.
        public var handshakes: Int { record.withLock { $0.handshakes } }

        /// Answers a handshake: a WebSocket that plays the script from its start.
        ///
        /// - Parameters:
        ///   - request: The handshake's request.
        ///   - protocols: The subprotocols the client offers.
        /// - Returns: The open WebSocket, with the subprotocol chosen and a 101 answer.
        func open(_ request: URLRequest, protocols: [String]) -> WebSocket {
            record.withLock { $0.handshakes += 1 }
            let chosen = subprotocols.first { protocols.contains($0) }
            var headers: HTTPHeaders = [.connection: "Upgrade", Header("Upgrade"): "websocket"]
            if let chosen {
                headers[Header("Sec-WebSocket-Protocol")] = chosen
            }
            return WebSocket(
                channel: MockWebSocketChannel(script: self, request: request),
                subprotocol: chosen,
                response: HTTPResponse(status: HTTPStatus(code: 101), headers: headers, url: request.url)
            )
        }

        fileprivate func noteSent(_ message: WebSocket.Message) -> [WebSocket.Message] {
            record.withLock { $0.sent.append(message) }
            return replies?(message) ?? []
        }

        fileprivate func noteClose(_ code: WebSocket.CloseCode, _ reason: String) {
            record.withLock { $0.close = $0.close ?? (code, reason) }
        }
    }
}

/// One play of a ``MockClient/WebSocketScript``'s script, as the channel of a `WebSocket`.
private final class MockWebSocketChannel: WebSocket.Channel {
    private enum Ending {
        case closedByServer(WebSocket.CloseCode?, String)
        case closedByClient
        case failed(any Error)
    }

    private struct State {
        var step = 0
        var replies: [WebSocket.Message] = []
        var sent = 0
        var awaited = 0
        var ending: Ending?
        var closeStatus: (code: WebSocket.CloseCode?, reason: String)?
    }

    private enum Action {
        case deliver(WebSocket.Message)
        case end(Ending)
        case again
        case wait
        case pause(Duration)
    }

    private let script: MockClient.WebSocketScript
    private let request: URLRequest
    private let state = Locked(State())
    /// Wakes a reader waiting for the client's next message or close.
    private let nudges: AsyncStream<Void>
    private let nudge: AsyncStream<Void>.Continuation

    init(script: MockClient.WebSocketScript, request: URLRequest) {
        self.script = script
        self.request = request
        (nudges, nudge) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func receive() async throws -> WebSocket.Message? {
        while true {
            switch nextAction() {
            case .deliver(let message):
                return message
            case .end(let ending):
                return try outcome(of: ending)
            case .again:
                continue
            case .wait:
                var waiting = nudges.makeAsyncIterator()
                if await waiting.next() == nil {
                    abort()
                    throw CancellationError()
                }
            case .pause(let duration):
                do {
                    try await script.clock.sleep(for: duration)
                } catch {
                    abort()
                    throw error
                }
            }
        }
    }

    /// Takes the next step of the script, or says why there is none yet.
    private func nextAction() -> Action {
        let steps = script.steps
        return state.withLock { state in
            if !state.replies.isEmpty {
                return .deliver(state.replies.removeFirst())
            }
            if let ending = state.ending {
                return .end(ending)
            }
            guard state.step < steps.count else { return .wait }
            switch steps[state.step] {
            case .message(let message):
                state.step += 1
                return .deliver(message)
            case .pause(let duration):
                state.step += 1
                return .pause(duration)
            case .awaitMessage:
                guard state.sent > state.awaited else { return .wait }
                state.awaited += 1
                state.step += 1
                return .again
            case .close(let code, let reason):
                state.step += 1
                state.ending = .closedByServer(code, reason)
                state.closeStatus = (code, reason)
                return .again
            case .failure(let error):
                state.step += 1
                state.ending = .failed(error)
                return .again
            }
        }
    }

    /// What the reader gets once the connection has ended: the end of the messages, or an error.
    private func outcome(of ending: Ending) throws -> WebSocket.Message? {
        switch ending {
        case .closedByClient:
            return nil
        case .closedByServer(let code, let reason):
            guard let code, code != .normalClosure, code != .goingAway else { return nil }
            let because = reason.isEmpty ? "" : ": \(reason)"
            throw SluiceError(
                .close,
                message: "the server closed the WebSocket with \(code)\(because)",
                request: request
            )
        case .failed(let error):
            throw error
        }
    }

    func send(_ message: WebSocket.Message) async throws {
        let closed = state.withLock { state -> Bool in
            guard state.ending == nil else { return true }
            state.sent += 1
            return false
        }
        guard !closed else {
            throw SluiceError(.close, message: "cannot send on a WebSocket that is closed", request: request)
        }
        let replies = script.noteSent(message)
        state.withLock { $0.replies += replies }
        nudge.yield()
    }

    func close(code: WebSocket.CloseCode, reason: String) async {
        script.noteClose(code, reason)
        state.withLock { state in
            guard state.ending == nil else { return }
            // The scripted server answers the closing frame with the client's code, as servers do.
            state.ending = .closedByClient
            state.closeStatus = (code, reason)
        }
        nudge.yield()
    }

    func abort() {
        let ended = state.withLock { state -> Bool in
            guard state.ending == nil else { return false }
            state.ending = .closedByClient
            return true
        }
        if ended {
            script.noteClose(.goingAway, "")
        }
        nudge.yield()
    }

    var closeStatus: (code: WebSocket.CloseCode?, reason: String)? {
        state.withLock { $0.closeStatus }
    }
}
