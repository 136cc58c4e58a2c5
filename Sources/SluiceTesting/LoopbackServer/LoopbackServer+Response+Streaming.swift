public import Foundation
public import SluiceCore

// Responses whose body is written piece by piece, with pauses, as a slow or streaming server sends it.
extension LoopbackServer.Response {
    /// One piece of a streamed body: bytes, and how long to wait before sending them.
    ///
    /// Each chunk is written as soon as its pause is over, as one chunk of `Transfer-Encoding: chunked` unless the
    /// response announces its length; an empty chunk only pauses.
    public struct Chunk: Sendable, Equatable {
        /// The bytes of this piece.
        public var bytes: Data

        /// How long to wait before sending this piece; ``LoopbackServer/stop()`` cuts the wait short.
        public var delay: Duration

        /// Creates a chunk of bytes.
        ///
        /// - Parameters:
        ///   - bytes: The bytes of this piece.
        ///   - delay: How long to wait before sending them; negative durations are treated as zero.
        public init(_ bytes: Data, after delay: Duration = .zero) {
            self.bytes = bytes
            self.delay = max(.zero, delay)
        }

        /// Creates a chunk of text, sent as UTF-8.
        ///
        /// - Parameters:
        ///   - text: The text of this piece.
        ///   - delay: How long to wait before sending it; negative durations are treated as zero.
        public init(text: String, after delay: Duration = .zero) {
            self.init(Data(text.utf8), after: delay)
        }
    }

    /// The byte the generated pattern has at every offset is the offset modulo this prime, so that a piece
    /// delivered at the wrong offset, or twice, does not look right by accident at power-of-two boundaries.
    static let patternPeriod: Int64 = 251

    /// A response whose body is sent piece by piece, pausing before each piece as the piece asks.
    ///
    /// ```swift
    /// server.route(
    ///     "/progress",
    ///     response: .streamed([
    ///         LoopbackServer.Response.Chunk(text: "started\n"),
    ///         LoopbackServer.Response.Chunk(text: "done\n", after: .milliseconds(50)),
    ///     ])
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - chunks: The pieces in order.
    ///   - status: The status code; `200` unless you say otherwise.
    ///   - headers: Header fields to send, in order.
    ///   - announcingLength: `true` to send the total as `Content-Length` before the first piece; `false` (the
    ///     default) to send each piece as a chunk of `Transfer-Encoding: chunked`.
    /// - Returns: The response.
    public static func streamed(
        _ chunks: [Chunk],
        status: Int = 200,
        headers: [HTTPHeaders.Field] = [],
        announcingLength: Bool = false
    ) -> LoopbackServer.Response {
        var response = LoopbackServer.Response(status: status, headers: headers)
        response.stream = BodyStream(source: .chunks(chunks), announcesLength: announcingLength)
        return response
    }

    /// A response with a large deterministic body that is generated while it is sent, never held in memory.
    ///
    /// The byte at offset `i` is `UInt8(i % 251)`; ``generatedBytes(in:)`` gives the bytes of any range, to check
    /// what a client received. The server writes only as fast as the client reads: a client that stops reading
    /// stops the server too, with no more than a few hundred KiB waiting in the server, so bodies of several GiB are
    /// fine. The body goes with `Content-Type: application/octet-stream`.
    ///
    /// ```swift
    /// server.route("/large", response: .generated(byteCount: 3 << 30))
    /// ```
    ///
    /// - Parameters:
    ///   - byteCount: The length of the body; negative counts are treated as `0`.
    ///   - chunkSize: The number of bytes per piece (and per chunk when sent chunked); values below 1 are treated
    ///     as 1, values above 16 MiB as 16 MiB.
    ///   - pause: How long to wait between two pieces; negative durations are treated as zero.
    ///   - announcingLength: `true` (the default) to send `Content-Length`; `false` to send
    ///     `Transfer-Encoding: chunked`.
    /// - Returns: The response.
    public static func generated(
        byteCount: Int64,
        chunkSize: Int = 64 * 1024,
        pause: Duration = .zero,
        announcingLength: Bool = true
    ) -> LoopbackServer.Response {
        var response = LoopbackServer.Response(headers: [.init("Content-Type", "application/octet-stream")])
        let source = BodyStream.Source.pattern(
            byteCount: max(0, byteCount),
            pieceSize: min(max(1, chunkSize), 16 * 1024 * 1024),
            pause: max(.zero, pause)
        )
        response.stream = BodyStream(source: source, announcesLength: announcingLength)
        return response
    }

    /// The bytes a ``generated(byteCount:chunkSize:pause:announcingLength:)`` body has in a range of offsets.
    ///
    /// - Parameter range: The offsets, such as `1_000..<2_000`; offsets below zero are left out.
    /// - Returns: The bytes, `UInt8(i % 251)` for each offset `i`.
    public static func generatedBytes(in range: Range<Int64>) -> Data {
        let clamped = max(0, range.lowerBound)..<max(0, range.upperBound)
        let count = clamped.count
        var bytes = Data(count: count)
        bytes.withUnsafeMutableBytes { buffer in
            // One period, then copies of it: byte by byte, large bodies took seconds in tests under a sanitizer.
            let period = Int(patternPeriod)
            let first = Int(clamped.lowerBound % patternPeriod)
            for index in 0..<min(period, count) {
                buffer[index] = UInt8((first + index) % period)
            }
            buffer.repeatPrefix(period)
        }
        return bytes
    }
}

extension UnsafeMutableRawBufferPointer {
    /// Fills the buffer with copies of its first `period` bytes, copying what is written so far after itself, a
    /// whole number of periods each time, so that a large buffer takes a few copies rather than a pass byte by byte.
    ///
    /// - Parameter period: How many bytes at the start are already written and repeat.
    package func repeatPrefix(_ period: Int) {
        guard let base = baseAddress else { return }
        var filled = Swift.min(period, count)
        while filled < count {
            let length = Swift.min(filled, count - filled)
            (base + filled).copyMemory(from: base, byteCount: length)
            filled += length
        }
    }
}

/// A body produced piece by piece.
struct BodyStream: Sendable, Equatable {
    /// Where the pieces come from.
    enum Source: Sendable, Equatable {
        /// Pieces given in advance.
        case chunks([LoopbackServer.Response.Chunk])
        /// The deterministic pattern, generated piece by piece.
        case pattern(byteCount: Int64, pieceSize: Int, pause: Duration)
    }

    /// Where the pieces come from.
    var source: Source

    /// Whether the total is sent as `Content-Length` rather than the pieces as chunks.
    var announcesLength: Bool

    /// The length of the whole body.
    var totalLength: Int64 {
        switch source {
        case .chunks(let chunks):
            chunks.reduce(0) { $0 + Int64($1.bytes.count) }
        case .pattern(let byteCount, _, _):
            byteCount
        }
    }
}
