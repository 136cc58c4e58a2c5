/// The lines of a text body, read from its byte chunks as they arrive: what ``Client/lines(_:maximumLength:)`` reads
/// a response with.
///
/// A line ends at a line feed (LF), a carriage return (CR) or the pair CRLF, which is one line end even when the
/// CR ends one chunk and the LF starts the next. Lines come without their terminators; a last line without one is
/// a line too, and an empty body has none. Text is decoded as UTF-8, with replacement characters for bytes that
/// are not.
///
/// The chunks are `Data` in any sizes: a line may span many chunks, and a chunk may hold many lines. The sequence
/// reads the base only as lines are asked for, holding one chunk and one unfinished line at a time, and ends by
/// throwing `CancellationError` when the consuming task is cancelled. A line longer than `maximumLength` bytes ends
/// it with a ``StreamParseError`` naming the limit and the line.
package struct LineDecodingSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A line, without its terminator.
    package typealias Element = String

    private let base: Base
    private let maximumLength: Int

    /// Creates the lines of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The text's bytes, in chunks of any size.
    ///   - maximumLength: The most bytes a line may hold, its terminator not counted.
    package init(base: Base, maximumLength: Int) {
        self.base = base
        self.maximumLength = maximumLength
    }

    /// Creates an iterator over the lines.
    ///
    /// - Returns: An iterator that reads the base as lines are asked for.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: LineReader(base: base.makeAsyncIterator(), maximumLineLength: maximumLength))
    }

    /// An iterator over the lines of a sequence of byte chunks.
    package struct AsyncIterator: AsyncIteratorProtocol {
        private var reader: LineReader<Base.AsyncIterator>

        fileprivate init(reader: LineReader<Base.AsyncIterator>) {
            self.reader = reader
        }

        /// Reads the next line.
        ///
        /// - Returns: The next line without its terminator, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line past the limit; `CancellationError` when the task is
        ///   cancelled; what the base throws.
        package mutating func next() async throws -> String? {
            var none: Void = ()
            return try await reader.next(&none, readsUnterminatedLine: true) { _, line, _ in
                String(decoding: line, as: UTF8.self)
            }
        }
    }
}

extension LineDecodingSequence: Sendable where Base: Sendable {}

// An iterator is one loop's cursor; it can move to another task with its loop when its base's iterator can.
extension LineDecodingSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

extension AsyncSequence where Element == Data {
    /// The lines of a text body given as byte chunks, split at CR, LF and CRLF.
    ///
    /// - Parameter maximumLength: The most bytes a line may hold, its terminator not counted; 1 MiB by default.
    /// - Returns: The lines, read from this sequence as they are asked for.
    package func decodingLines(maximumLength: Int = 1 << 20) -> LineDecodingSequence<Self> {
        LineDecodingSequence(base: self, maximumLength: maximumLength)
    }
}
