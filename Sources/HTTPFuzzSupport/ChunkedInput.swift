package import Foundation

/// A fuzzer's input read as bytes to parse and the points at which the network cuts them into chunks.
///
/// The first byte chooses how the payload is cut: with its top bit set, into one chunk per byte; otherwise into
/// as many pieces as its low four bits say, at the offsets the next two bytes each give (modulo the payload's
/// length plus one, so that empty chunks happen too). Bits 4 to 6 are flags that each target reads its own way.
/// The payload is what follows. An empty input is an empty payload, in one chunk.
package struct ChunkedInput: Sendable {
    /// The bytes to parse.
    package let payload: [UInt8]
    /// Three bits of choices for the target, 0 to 7.
    package let flags: UInt8
    /// Where the network cuts the payload: ascending offsets in `0...payload.count`.
    package let cuts: [Int]

    /// Reads an input.
    ///
    /// - Parameter bytes: The fuzzer's input.
    package init(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard let first = bytes.first else {
            self.init(payload: [])
            return
        }
        let flags = (first >> 4) & 0b111
        if first & 0x80 != 0 {
            let payload = Array(bytes.dropFirst())
            self.init(payload: payload, flags: flags, cuts: payload.isEmpty ? [] : Array(1..<payload.count))
            return
        }
        let count = min(Int(first & 0x0F), (bytes.count - 1) / 2)
        let payload = Array(bytes[(1 + 2 * count)...])
        let cuts = (0..<count).map { index in
            (Int(bytes[1 + 2 * index]) << 8 | Int(bytes[2 + 2 * index])) % (payload.count + 1)
        }
        self.init(payload: payload, flags: flags, cuts: cuts.sorted())
    }

    /// An input with the given parts, for the tests.
    ///
    /// - Parameters:
    ///   - payload: The bytes to parse.
    ///   - flags: The target's choices, 0 to 7.
    ///   - cuts: Ascending offsets into the payload.
    package init(payload: [UInt8], flags: UInt8 = 0, cuts: [Int] = []) {
        self.payload = payload
        self.flags = flags & 0b111
        self.cuts = cuts
    }

    /// The payload as the network delivers it, cut at ``cuts``.
    package var chunks: [[UInt8]] {
        var start = 0
        var chunks: [[UInt8]] = []
        for cut in cuts + [payload.count] {
            chunks.append(Array(payload[start..<cut]))
            start = cut
        }
        return chunks
    }

    /// Whether flag `bit` (0, 1 or 2) is set.
    package func flag(_ bit: Int) -> Bool { flags & (1 << bit) != 0 }
}

extension ChunkedInput {
    /// Chunks as a body's byte stream delivers them, for the typed streams to read.
    ///
    /// - Parameter chunks: The chunks, in order.
    /// - Returns: A stream that yields each chunk, then ends.
    package static func stream(of chunks: [[UInt8]]) -> AsyncStream<Data> {
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        for chunk in chunks {
            continuation.yield(Data(chunk))
        }
        continuation.finish()
        return stream
    }
}
