// The limit of a phase, as wrk is over HTTP: a client with no library, on a blocking socket. It sends frames masked
// once, ahead of time, gathered up to 64 KiB a write; it reads only frame headers and skips payloads where they lie in
// its 64 KiB buffer, keeping the bytes of text messages alone. No client that hands its reader whole messages can do
// less, so what the server sends to it or takes from it is as much as any client can reach against that server on this
// machine. It negotiates no compression.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket on a blocking socket, with no library: the limit row of each phase.
///
/// Its calls block the task's thread; it runs alone in its phase, so nothing waits on that thread.
final class RawSocketConnection: PhaseConnection {
    private let descriptor: Int32
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// The buffer's first byte.
    private var base: UnsafeMutableRawPointer {
        guard let base = buffer.baseAddress else { preconditionFailure("an allocated buffer has an address") }
        return base
    }
    /// The unread bytes of ``buffer``, from `start` to `end`.
    private var start = 0
    private var end = 0
    /// Frames written by the phase and not yet sent.
    private var pending: [UInt8] = []
    /// The payload's frame, masked once.
    private let payloadFrame: [UInt8]
    /// The masking key of every frame: fixed, as a limit may have it (a real client draws one per frame).
    private static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// Connects, sends the opening handshake and reads the `101` answer.
    ///
    /// - Parameters:
    ///   - url: The server's `ws://` URL on `127.0.0.1`, with the mode's path.
    ///   - size: The payload's size.
    /// - Throws: ``UnexpectedMessage`` when the connection or the handshake fails.
    init(url: URL, size: Int) throws {
        guard let port = url.port else { throw UnexpectedMessage(description: "no port in \(url)") }
        payloadFrame = Self.frame(opcode: 0x2, payload: payload(size: size))
        pending.reserveCapacity(64 << 10)
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw UnexpectedMessage(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw UnexpectedMessage(description: "connect: errno \(errno)") }
        let path = url.path.isEmpty ? "/" : url.path
        let head =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        pending = Array(head.utf8)
        try flush()
        // The answer's head, then whatever frames followed it in the same reads.
        let separator = Array("\r\n\r\n".utf8)
        while true {
            let unread = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
            if let found = unread.firstRange(of: separator) {
                guard unread.starts(with: Array("HTTP/1.1 101".utf8)) else {
                    let answer = String(decoding: unread, as: UTF8.self)
                    throw UnexpectedMessage(description: "the handshake was refused: \(answer)")
                }
                start += found.upperBound
                break
            }
            guard end < buffer.count else { throw UnexpectedMessage(description: "the handshake's answer is too long") }
            try fill()
        }
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    /// A client's frame: FIN, the opcode, the mask bit and length, the key, the masked payload.
    private static func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        frame += key
        frame += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        return frame
    }

    func sendPayload() async throws {
        try gather(payloadFrame)
    }

    func sendText(_ text: String) async throws {
        try gather(Self.frame(opcode: 0x1, payload: Array(text.utf8)))
    }

    func receive() async throws -> Received {
        try flush()
        while true {
            while end - start < 2 { try fill() }
            let first = buffer[start]
            let second = buffer[start + 1]
            let headerLength = 2 + (second & 0x7F == 126 ? 2 : second & 0x7F == 127 ? 8 : 0)
            while end - start < headerLength { try fill() }
            let length =
                headerLength == 2
                ? Int(second & 0x7F)
                : (start + 2..<start + headerLength).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            start += headerLength
            switch first & 0x0F {
            case 0x1:
                var text: [UInt8] = []
                while text.count < length {
                    if start == end { try fill() }
                    let take = min(end - start, length - text.count)
                    text += UnsafeRawBufferPointer(rebasing: buffer[start..<start + take])
                    start += take
                }
                return .text(String(decoding: text, as: UTF8.self))
            case 0x8:
                return .end
            case let opcode:
                var left = length
                while left > 0 {
                    if start == end { try fill() }
                    let take = min(end - start, left)
                    start += take
                    left -= take
                }
                if opcode == 0x2 { return .binary(length) }
            }
        }
    }

    /// Runs the closing handshake: a closing frame with 1000, then what the server sends until its own.
    func runClosingHandshake() async {
        do {
            try gather(Self.frame(opcode: 0x8, payload: [0x03, 0xE8]))
            while true {
                if case .end = try await receive() { return }
            }
        } catch {
            // The server may close the connection right after its closing frame.
        }
    }

    /// Adds a frame to those waiting, sending them first when they would pass 64 KiB.
    private func gather(_ frame: [UInt8]) throws {
        if pending.count + frame.count > 64 << 10 {
            try flush()
        }
        pending += frame
    }

    /// Sends every frame waiting.
    private func flush() throws {
        var sent = 0
        while sent < pending.count {
            let count = pending.withUnsafeBytes {
                send(
                    descriptor,
                    UnsafeRawBufferPointer(rebasing: $0[sent...]).baseAddress,
                    $0.count - sent,
                    Int32(MSG_NOSIGNAL)
                )
            }
            guard count > 0 else { throw UnexpectedMessage(description: "send: errno \(errno)") }
            sent += count
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Reads more: at the start of the buffer when all of it was taken, else after what is left, moved to the front.
    private func fill() throws {
        if start == end {
            start = 0
            end = 0
        } else if end == buffer.count {
            base.copyMemory(from: base + start, byteCount: end - start)
            end -= start
            start = 0
        }
        let count = recv(descriptor, base + end, buffer.count - end, 0)
        guard count > 0 else {
            let why = count == 0 ? "the server closed the connection" : "recv: errno \(errno)"
            throw UnexpectedMessage(description: why)
        }
        end += count
    }
}
