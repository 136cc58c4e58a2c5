import Foundation

extension NetworkRequestPerformer {
    /// Opens a WebSocket on URLSession's `URLSessionWebSocketTask`: the path on Apple platforms, where the system's
    /// TLS, proxies and trust settings apply.
    ///
    /// The handshake is the request's, with the subprotocols offered in `Sec-WebSocket-Protocol`; the call returns
    /// once the server has switched protocols (a ping is sent and answered), and fails with a ``SluiceError`` of the
    /// ``SluiceError/Code/handshake`` code, with the server's status where URLSession reports one, otherwise. The
    /// ``WebSocket`` then reads like one on Sluice's own transport, with these differences, all URLSession's:
    ///
    /// - Only ``WebSocket/Configuration/maximumMessageSize`` and ``WebSocket/Configuration/handshakeTimeout`` apply;
    ///   URLSession keeps its own buffers, frame limits and compression, and sends no keep-alive pings.
    /// - A close code that `URLSessionWebSocketTask.CloseCode` does not name (an application's 4000, say) is sent as
    ///   1000.
    /// - Frames that break RFC 6455 reach the reader as URLSession's error, wrapped in a ``SluiceError`` of the
    ///   ``SluiceError/Code/close`` code, rather than one naming the rule.
    ///
    /// On Linux, FoundationNetworking runs WebSockets on libcurl, which Debian and Ubuntu build without them; there the
    /// handshake fails with libcurl's error, and ``SocketRequestPerformer`` is the performer to use.
    ///
    /// - Parameters:
    ///   - request: A GET request without a body, to a `ws://` or `wss://` URL.
    ///   - protocols: The subprotocols to offer, in order of preference.
    ///   - configuration: The WebSocket's limits and timers; see above for those that apply.
    /// - Returns: The open WebSocket.
    /// - Throws: ``SluiceError`` of the handshake stage; `CancellationError` when the task is cancelled.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        var request = request
        if !protocols.isEmpty {
            request.setValue(protocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        try request.validateForTransport()
        let task = webSocketTask(with: request)
        task.maximumMessageSize = configuration.maximumMessageSize
        task.resume()
        let sent = request
        let opened = try await withTimeLimit(
            configuration.handshakeTimeout,
            clock: ContinuousClock()
        ) {
            try await URLSessionWebSocketChannel.open(task, request: sent)
        }
        guard let opened else {
            task.cancel()
            throw SluiceError(
                .timedOut,
                stage: .handshake,
                message: "the server did not answer the WebSocket handshake within \(configuration.handshakeTimeout)",
                request: request,
                underlyingError: URLError(.timedOut)
            )
        }
        return opened
    }
}

/// A ``WebSocket``'s messages on a `URLSessionWebSocketTask`.
final class URLSessionWebSocketChannel: WebSocket.Channel {
    private let task: URLSessionWebSocketTask
    private let request: URLRequest

    private init(task: URLSessionWebSocketTask, request: URLRequest) {
        self.task = task
        self.request = request
    }

    /// Waits until the task's handshake is done (the answer to a ping comes only then), and wraps it.
    static func open(_ task: URLSessionWebSocketTask, request: URLRequest) async throws -> WebSocket {
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    task.sendPing { error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else {
                            continuation.resume()
                        }
                    }
                }
            } onCancel: {
                task.cancel()
            }
        } catch {
            task.cancel()
            if Task.isCancelled {
                throw CancellationError()
            }
            let response = (task.response as? HTTPURLResponse).map { HTTPResponse($0, body: Data()) }
            var answer =
                response.map { WebSocketHandshake.refusal($0.status) }
                ?? SluiceError.describe(error)
            #if canImport(FoundationNetworking)
            if response == nil {
                answer += "; URLSession runs WebSockets on libcurl here, which is often built without them"
                answer +=
                    " (`curl --version` lists ws when it has them): SocketRequestPerformer opens WebSockets itself"
            }
            #endif
            throw SluiceError(
                .handshake,
                message: "the WebSocket handshake failed: \(answer)",
                request: request,
                response: response,
                underlyingError: error
            )
        }
        let response = (task.response as? HTTPURLResponse).map { HTTPResponse($0, body: Data()) }
        return WebSocket(
            channel: URLSessionWebSocketChannel(task: task, request: request),
            subprotocol: response?.headers[Header("Sec-WebSocket-Protocol")],
            response: response
        )
    }

    func receive() async throws -> WebSocket.Message? {
        let task = self.task
        do {
            let message = try await withTaskCancellationHandler {
                try await task.receive()
            } onCancel: {
                task.cancel(with: .goingAway, reason: nil)
            }
            switch message {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default:
                throw SluiceError(
                    .frame,
                    message: "URLSession delivered a message of an unknown kind",
                    request: request
                )
            }
        } catch let error as SluiceError {
            throw error
        } catch {
            if Task.isCancelled {
                throw CancellationError()
            }
            if let status = closeStatus {
                guard let code = status.code, code != .normalClosure, code != .goingAway,
                    code != .noStatusReceived
                else { return nil }
                let because = status.reason.isEmpty ? "" : ": \(status.reason)"
                throw SluiceError(
                    .close,
                    message: "the server closed the WebSocket with \(code)\(because)",
                    request: request,
                    underlyingError: error
                )
            }
            throw SluiceError(
                .close,
                message:
                    "the WebSocket to \(request.url?.absoluteString ?? "?") failed: \(SluiceError.describe(error))",
                request: request,
                underlyingError: error
            )
        }
    }

    func send(_ message: WebSocket.Message) async throws {
        let sent: URLSessionWebSocketTask.Message =
            switch message {
            case .text(let text): .string(text)
            case .binary(let data): .data(data)
            }
        do {
            try await task.send(sent)
        } catch {
            throw SluiceError(
                .close,
                message: "cannot send on the WebSocket: \(SluiceError.describe(error))",
                request: request,
                underlyingError: error
            )
        }
    }

    func close(code: WebSocket.CloseCode, reason: String) async {
        let named = URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure
        task.cancel(with: named, reason: Data(reason.utf8.prefix(123)))
    }

    func abort() {
        task.cancel(with: .goingAway, reason: nil)
    }

    var closeStatus: (code: WebSocket.CloseCode?, reason: String)? {
        let code = task.closeCode
        // 1006 and 1015 are never sent in a closing frame: URLSession sets them for a connection that ended without one.
        guard code != .invalid, code != .abnormalClosure, code.rawValue != 1015 else { return nil }
        let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (
            code == .noStatusReceived ? nil : WebSocket.CloseCode(rawValue: UInt16(clamping: code.rawValue)), reason
        )
    }
}
