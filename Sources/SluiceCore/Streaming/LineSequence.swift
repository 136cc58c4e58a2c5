/// The lines of a text body, read from its byte chunks as they arrive.
///
/// A line ends at a line feed (LF), a carriage return (CR) or the pair CRLF, which is one line end even when the
/// CR ends one chunk and the LF starts the next. Lines come without their terminators; a last line without one is
/// a line too, and an empty body has none. Text is decoded as UTF-8, with replacement characters for bytes that
/// are not.
///
/// The chunks are `Data`, the type a response body has in ``HTTPResponse``, in any sizes: a line may span many
/// chunks, and a chunk may hold many lines. Make the sequence with
/// `lines(maximumLength:)`:
///
/// ```swift
/// for try await line in chunks.lines() {
///     print(line)
/// }
/// ```
///
/// The sequence reads the base only as lines are asked for, holding one chunk and one unfinished line at a time,
/// and ends by throwing `CancellationError` when the consuming task is cancelled. A line longer than
/// `maximumLength` bytes ends it with a ``StreamParseError`` naming the limit and the line.
public struct LineSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A line, without its terminator.
    public typealias Element = String

    private let base: Base
    private let maximumLength: Int

    /// Creates the lines of a sequence of byte chunks.
    ///
    /// ```swift
    /// let lines = LineSequence(base: chunks, maximumLength: 4096)
    /// ```
    ///
    /// - Parameters:
    ///   - base: The text's bytes, in chunks of any size.
    ///   - maximumLength: The most bytes a line may hold, its terminator not counted; 1 MiB by default.
    public init(base: Base, maximumLength: Int = 1 << 20) {
        self.base = base
        self.maximumLength = maximumLength
    }

    /// Creates an iterator over the lines.
    ///
    /// - Returns: An iterator that reads the base as lines are asked for.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: LineReader(base: base.makeAsyncIterator(), maximumLineLength: maximumLength))
    }

    /// An iterator over the lines of a sequence of byte chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var reader: LineReader<Base.AsyncIterator>

        fileprivate init(reader: LineReader<Base.AsyncIterator>) {
            self.reader = reader
        }

        /// Reads the next line.
        ///
        /// - Returns: The next line without its terminator, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line past the limit; `CancellationError` when the task is
        ///   cancelled; what the base throws.
        public mutating func next() async throws -> String? {
            var none: Void = ()
            return try await reader.next(&none, readsUnterminatedLine: true) { _, line, _ in
                String(decoding: line, as: UTF8.self)
            }
        }
    }
}

extension LineSequence: Sendable where Base: Sendable {}

// An iterator is one loop's cursor; it can move to another task with its loop when its base's iterator can.
extension LineSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

extension AsyncSequence where Element == Data {
    /// The lines of a text body given as byte chunks, split at CR, LF and CRLF.
    ///
    /// ```swift
    /// let (body, input) = AsyncStream.makeStream(of: Data.self)
    /// input.yield(Data("first\r".utf8))
    /// input.yield(Data("\nsecond".utf8))
    /// input.finish()
    /// for try await line in body.lines() {
    ///     print(line)  // first, then second
    /// }
    /// ```
    ///
    /// - Parameter maximumLength: The most bytes a line may hold, its terminator not counted; 1 MiB by default.
    /// - Returns: The lines, read from this sequence as they are asked for.
    public func lines(maximumLength: Int = 1 << 20) -> LineSequence<Self> {
        LineSequence(base: self, maximumLength: maximumLength)
    }
}
