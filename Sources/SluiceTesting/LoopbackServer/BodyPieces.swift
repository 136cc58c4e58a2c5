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
        /// Pieces made in advance, in reverse order so that the next one is popped from the end.
        case queued([Piece])
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
            let period = Int(LoopbackResponse.patternPeriod)
            let table = (0..<(size + period)).map { UInt8($0 % period) }
            state = .pattern(
                next: window.lowerBound,
                end: window.upperBound,
                pieceSize: size,
                pause: pause,
                table: table
            )
        case .chunks(let chunks):
            state = .queued(Self.cut(chunks, to: window, maximumPieceSize: maximumPieceSize).reversed())
        case nil:
            let whole = [LoopbackResponse.Chunk(body)]
            state = .queued(Self.cut(whole, to: window, maximumPieceSize: maximumPieceSize).reversed())
        }
    }

    /// The next piece, or `nil` after the last.
    mutating func next() -> Piece? {
        switch state {
        case .queued(var pieces):
            let piece = pieces.popLast()
            state = .queued(pieces)
            return piece
        case .pattern(let next, let end, let pieceSize, let pause, let table):
            guard next < end else {
                return nil
            }
            let count = Int(min(Int64(pieceSize), end - next))
            let start = Int(next % LoopbackResponse.patternPeriod)
            state = .pattern(next: next + Int64(count), end: end, pieceSize: pieceSize, pause: pause, table: table)
            return Piece(delay: next == firstOffset ? .zero : pause, bytes: table[start..<(start + count)])
        }
    }

    /// The parts of `chunks` inside `window`, each cut into pieces no larger than `maximumPieceSize`.
    ///
    /// A chunk entirely outside the window is skipped with its pause; an empty chunk inside it keeps its pause.
    private static func cut(
        _ chunks: [LoopbackResponse.Chunk],
        to window: Range<Int64>,
        maximumPieceSize: Int?
    ) -> [Piece] {
        var pieces: [Piece] = []
        var offset: Int64 = 0
        for chunk in chunks {
            let chunkRange = offset..<(offset + Int64(chunk.bytes.count))
            offset = chunkRange.upperBound
            let inside = chunkRange.clamped(to: window)
            let isEmptyInside = chunk.bytes.isEmpty && window.contains(chunkRange.lowerBound)
            guard !inside.isEmpty || isEmptyInside else {
                continue
            }
            let bytes = Array(chunk.bytes)[...]
            let selected = bytes[
                Int(inside.lowerBound - chunkRange.lowerBound)..<Int(inside.upperBound - chunkRange.lowerBound)
            ]
            let size = max(1, maximumPieceSize ?? max(1, selected.count))
            var delay = chunk.delay
            var start = selected.startIndex
            repeat {
                let end = min(start + size, selected.endIndex)
                pieces.append(Piece(delay: delay, bytes: selected[start..<end]))
                delay = .zero
                start = end
            } while start < selected.endIndex
        }
        return pieces
    }
}
