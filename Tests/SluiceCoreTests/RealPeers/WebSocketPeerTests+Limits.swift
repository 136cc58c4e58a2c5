import Foundation
import Testing

@testable import SluiceCore
@testable import SluiceTransport

/// The limits on what a server's messages may take, against both servers: messages as large as
/// ``WebSocket/Configuration/maximumMessageSize`` allows, and a compressed message that expands past
/// ``WebSocket/Configuration/maximumDecompressionRatio``.
extension WebSocketPeerTests {
    /// 16 MiB, the default limit on a message, each way, as binary and as text, with and without compression.
    ///
    /// The servers take messages of any size, and the client's limit is inclusive. Compressed, the case takes seconds (a
    /// minute under a sanitizer): one server has it.
    ///
    /// Compressed, the binary message's bytes, which deflate cannot shrink, come out a little larger than they went
    /// in: past 16 MiB, within the frame limit's headroom for compression.
    @Test(arguments: [(WebSocketPeer.Kind.websockets, false), (.aiohttp, false), (.aiohttp, true)])
    func echoesSixteenMebibytes(kind: WebSocketPeer.Kind, compression: Bool) async throws {
        let setup = Setup(kind: kind, channel: .tcp, compression: compression)
        guard let session = try await Self.open("/echo", setup) else { return }
        let socket = session.socket
        let size = WebSocket.Configuration().maximumMessageSize
        #expect(size == 16 << 20)
        var iterator = socket.messages.makeAsyncIterator()
        let (binary, text) = Self.messages(of: size)
        try await socket.send(binary)
        #expect(try await iterator.next() == binary)
        try await socket.send(text)
        #expect(try await iterator.next() == text)
        await socket.close()
        #expect(try await iterator.next() == nil)
        try await session.performer.openDescriptorsGauge.wait { $0 == 0 }
    }

    /// A server's compressed message of 1 MiB of zeros, some thousand times smaller, written as one frame: the reader
    /// fails once the message has decompressed to more than 64 KiB and 100 times its compressed size, long before
    /// its 16 MiB limit, naming the ratio and the bytes in and out, and closes with 1009 (message too big).
    @Test(arguments: WebSocketPeer.Kind.allCases)
    func aCompressedMessageThatExpandsTooFarFailsTheReader(kind: WebSocketPeer.Kind) async throws {
        guard let (peer, performer) = try await Self.start(kind, .tcp) else { return }
        let deflater = try MessageDeflateCodec(
            zlib: try ZLib.shared.get(),
            compresses: true,
            windowBits: 15,
            resetsEachMessage: false
        )
        let bomb = deflater.compress([UInt8](repeating: 0, count: 1 << 20))
        try #require(bomb.count < 2_000)
        let frame = [0xC2, 126, UInt8(bomb.count >> 8), UInt8(bomb.count & 0xFF)] + bomb
        let hex = frame.map { String($0 >> 4, radix: 16) + String($0 & 0xF, radix: 16) }.joined()
        let socket = try await performer.webSocket(
            peer.request("/raw/\(hex)"),
            configuration: .init(compression: true)
        )
        #expect(socket.compressesMessages)
        let error = await #expect(throws: SluiceError.self) {
            for try await _ in socket.messages {}
        }
        // zlib fills the decompressor's 64 KiB buffer at each step: the bound is checked at each multiple of 64 KiB.
        let decoded = try #require((2...).lazy.map { $0 << 16 }.first { $0 / 100 >= bomb.count })
        #expect(
            error?.message
                == "invalid WebSocket frame from the server at byte 0: the compressed binary message expands more than 100 times, a likely decompression bomb: \(decoded) bytes decompressed from \(bomb.count) bytes received; the bound is the WebSocket's maximumDecompressionRatio (RFC 7692, section 6.2)"
        )
        #expect(error?.stage == .frame)
        let closeCode = try await performer.webSocket(peer.request("/raw-close-code"))
        var codes = closeCode.messages.makeAsyncIterator()
        #expect(try await codes.next() == .text("1009"))
        await closeCode.close()
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }
}
