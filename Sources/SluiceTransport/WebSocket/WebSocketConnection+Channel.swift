// Sluice's own WebSocket connection as the channel a `WebSocket` handle carries its messages on.

extension WebSocketConnection: WebSocket.Channel {
    func receive() async throws -> WebSocket.Message? {
        try await next()
    }

    func send(_ message: WebSocket.Message) async throws {
        switch message {
        case .text(let text): try await send(.text, Array(text.utf8))
        case .binary(let data): try await send(.binary, data)
        }
    }

    func close(code: WebSocket.CloseCode, reason: String) async {
        await close(code: code.rawValue, reason: reason)
    }

    var closeStatus: (code: WebSocket.CloseCode?, reason: String)? {
        rawCloseStatus.map { ($0.code.map(WebSocket.CloseCode.init(rawValue:)), $0.reason) }
    }
}
