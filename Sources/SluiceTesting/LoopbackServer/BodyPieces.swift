import Foundation

/// The pieces of a response body, in order, each with the pause before it; a generated body is made as it is read.
struct BodyPieces: IteratorProtocol {
    /// One piece: a pause, then bytes.
    struct Piece {
        /// How long to wait before sending the bytes.
        var delay: Duration
        /// The bytes; may be empty, for a pause alone.
        var bytes: ArraySlice<UInt8>
    }

    /// Where the pieces come from.
    private enum State {
        /// The parts of given chunks, each with its pause, cut into pieces of at most `pieceSize` bytes as they are
        /// read: the next piece starts at `position` in the part at `index`.
        case parts([Piece], index: Int, position: Int, pieceSize: Int?)
        /// The generated pattern from `next` up to `end`, cut from `table`, which holds the pattern from offset 0 and
        /// is longer than a piece by a whole period, so that any piece is one slice of it.
        case pattern(next: Int64, end: Int64, pieceSize: Int, pause: Duration, table: [UInt8])
    }

    /// Where the pieces come from.
    private var state: State

    /// The offset of the first byte the pattern sends, so that no pause comes before it.
    private let firstOffset: Int64

    /// The pieces of a body, limited to a window of it and cut to a largest piece size.
    ///
    /// - Parameters:
    ///   - body: The in-memory body, used when `stream` is `nil`.
    ///   - stream: The streamed body, or `nil`.
    ///   - window: The offsets to send; pieces outside it are skipped with their pauses.
    ///   - maximumPieceSize: The largest piece, such as a chunked fault's chunk size, or `nil` for no limit.
    init(body: Data, stream: BodyStream?, window: Range<Int64>, maximumPieceSize: Int?) {
        firstOffset = window.lowerBound
        switch stream?.source {
        case .pattern(_, let pieceSize, let pause):
            let size = min(pieceSize, maximumPieceSize ?? pieceSize)
            let period = Int(LoopbackServer.Response.patternPeriod)
            let table = (0..<(size + period)).map { UInt8($0 % period) }
            state = .pattern(
                next: window.lowerBound,
                end: window.upperBound,
                pieceSize: size,
                pause: pause,
                table: table
            )
        case .chunks(let chunks):
            state = .parts(Self.parts(of: chunks, in: window), index: 0, position: 0, pieceSize: maximumPieceSize)
        case nil:
            let whole = [LoopbackServer.Response.Chunk(body)]
            state = .parts(Self.parts(of: whole, in: window), index: 0, position: 0, pieceSize: maximumPieceSize)
        }
    }

    /// The next piece, or `nil` after the last.
    mutating func next() -> Piece? {
        switch state {
        case .parts(let parts, let index, let position, let pieceSize):
            guard index < parts.count else {
                return nil
            }
            let part = parts[index]
            let start = part.bytes.startIndex + position
            let end = min(start + max(1, pieceSize ?? part.bytes.count), part.bytes.endIndex)
            let isLast = end == part.bytes.endIndex
            state = .parts(
                parts,
                index: isLast ? index + 1 : index,
                position: isLast ? 0 : position + end - start,
                pieceSize: pieceSize
            )
            return Piece(delay: position == 0 ? part.delay : .zero, bytes: part.bytes[start..<end])
        case .pattern(let next, let end, let pieceSize, let pause, let table):
            guard next < end else {
                return nil
            }
            let count = Int(min(Int64(pieceSize), end - next))
            let start = Int(next % LoopbackServer.Response.patternPeriod)
            state = .pattern(next: next + Int64(count), end: end, pieceSize: pieceSize, pause: pause, table: table)
            return Piece(delay: next == firstOffset ? .zero : pause, bytes: table[start..<(start + count)])
        }
    }

    /// The parts of `chunks` inside `window`, each with its chunk's pause.
    ///
    /// A chunk entirely outside the window is skipped with its pause; an empty chunk inside it keeps its pause.
    private static func parts(of chunks: [LoopbackServer.Response.Chunk], in window: Range<Int64>) -> [Piece] {
        var parts: [Piece] = []
        var offset: Int64 = 0
        for chunk in chunks {
            let chunkRange = offset..<(offset + Int64(chunk.bytes.count))
            offset = chunkRange.upperBound
            let inside = chunkRange.clamped(to: window)
            let isEmptyInside = chunk.bytes.isEmpty && window.contains(chunkRange.lowerBound)
            guard !inside.isEmpty || isEmptyInside else {
                continue
            }
            let bytes = Array(chunk.bytes)
            let selected =
                Int(inside.lowerBound - chunkRange.lowerBound)..<Int(inside.upperBound - chunkRange.lowerBound)
            parts.append(Piece(delay: chunk.delay, bytes: bytes[selected]))
        }
        return parts
    }
}
