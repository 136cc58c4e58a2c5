// The Swift clients behind `PhaseConnection`: Sluice's `WebSocket`; swift-websocket's `WebSocketClient` on SwiftNIO,
// whose connection lives inside the handler it is given, so the phase runs there; and the raw socket of the limit row
// (RawSocketClient.swift).
import Foundation
import Logging
import NIOCore
import Sluice
import WSClient
import WSCompression

/// The Swift clients measured.
enum SwiftClient: String, CaseIterable, Sendable {
    /// Sluice's own transport.
    case sluice = "Sluice"
    /// swift-websocket's client, on SwiftNIO.
    case swiftWebSocket = "swift-websocket"
    /// No library: the limit (``RawSocketConnection``).
    case rawSocket = "raw socket"

    /// Whether it is a client a user would pick, measured in the memory test too; the raw socket is not.
    var isLibrary: Bool { self != .rawSocket }

    /// Opens a WebSocket and runs a body on it, then closes it.
    ///
    /// - Parameters:
    ///   - url: The server's URL, with the mode's path.
    ///   - deflate: Whether to offer permessage-deflate.
    ///   - size: The payload's size.
    ///   - body: What to do on the connection.
    /// - Returns: What the body returned.
    /// - Throws: What connecting or the body throws.
    func withConnection<Value: Sendable>(
        to url: URL,
        deflate: Bool,
        size: Int,
        _ body: @escaping @Sendable (inout any PhaseConnection) async throws -> Value
    ) async throws -> Value {
        switch self {
        case .sluice:
            let configuration = WebSocket.Configuration(compression: deflate)
            let socket = try await sluicePerformer.webSocket(URLRequest(url: url), configuration: configuration)
            var connection: any PhaseConnection = SluiceConnection(socket: socket, payload: Data(payload(size: size)))
            let value = try await body(&connection)
            await socket.close()
            return value
        case .swiftWebSocket:
            let result = ResultBox<Value>()
            let configuration = WebSocketClientConfiguration(
                maxFrameSize: 16 << 20,
                extensions: deflate ? [.perMessageDeflate(maxDecompressedFrameSize: 16 << 20)] : []
            )
            let client = WebSocketClient(
                url: url.absoluteString,
                configuration: configuration,
                logger: Logger(label: "WebSocketBenchmark")
            ) { inbound, outbound, _ in
                var connection: any PhaseConnection = NIOClientConnection(
                    messages: inbound.messages(maxSize: 16 << 20).makeAsyncIterator(),
                    outbound: outbound,
                    payload: ByteBuffer(bytes: payload(size: size))
                )
                result.set(await Result(awaiting: { try await body(&connection) }))
            }
            try await client.run()
            return try result.get()
        case .rawSocket:
            guard !deflate else { throw UnexpectedMessage(description: "the raw socket negotiates no compression") }
            let socket = try RawSocketConnection(url: url, size: size)
            var connection: any PhaseConnection = socket
            let value = try await body(&connection)
            await socket.runClosingHandshake()
            return value
        }
    }
}

/// The one performer Sluice's WebSockets are opened from.
let sluicePerformer = SocketRequestPerformer()

/// Sluice's `WebSocket`.
struct SluiceConnection: PhaseConnection {
    /// The socket.
    let socket: WebSocket
    /// The payload, as `send(_:)` takes it.
    let payload: Data

    func sendPayload() async throws {
        try await socket.send(.binary(payload))
    }

    func sendText(_ text: String) async throws {
        try await socket.send(.text(text))
    }

    func receive() async throws -> Received {
        switch try await socket.receive() {
        case .text(let text): .text(text)
        case .binary(let data): .binary(data.count)
        case nil: .end
        }
    }
}

/// swift-websocket's inbound messages and outbound writer, inside its handler.
struct NIOClientConnection: PhaseConnection {
    /// The inbound messages, whole.
    var messages: WebSocketInboundMessageStream.AsyncIterator
    /// The writer.
    let outbound: WebSocketOutboundWriter
    /// The payload, as the writer takes it.
    let payload: ByteBuffer

    func sendPayload() async throws {
        try await outbound.write(.binary(payload))
    }

    func sendText(_ text: String) async throws {
        try await outbound.write(.text(text))
    }

    mutating func receive() async throws -> Received {
        switch try await messages.next() {
        case .text(let text): .text(text)
        case .binary(let buffer): .binary(buffer.readableBytes)
        case nil: .end
        }
    }
}

/// The result of a body run inside swift-websocket's handler, handed out after `run()` returns.
///
/// `@unchecked Sendable`: the one value is only read and written under the lock.
final class ResultBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Value, any Error>?

    /// Stores the result.
    func set(_ value: Result<Value, any Error>) {
        lock.withLock { result = value }
    }

    /// The result, or an error when the handler never ran.
    func get() throws -> Value {
        guard let result = lock.withLock({ result }) else {
            throw UnexpectedMessage(description: "the connection closed before the phase ran")
        }
        return try result.get()
    }
}

extension Result where Failure == any Error {
    /// Catches what an async body throws.
    init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
