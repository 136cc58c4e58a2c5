/// Pulls byte chunks from a base iterator only as its lines are asked for, for every typed stream.
///
/// The reader holds one chunk and at most one unfinished line: it asks the base for the next chunk only when the
/// lines of the one it holds are used up, so a consumer that stops pulling stops the base too. Each call checks the
/// calling task for cancellation. After the base ends, or after an error, it returns `nil`.
struct LineReader<Base: AsyncIteratorProtocol> where Base.Element == Data {
    private var base: Base
    private var splitter: LineSplitter
    private var finished = false

    init(base: Base, maximumLineLength: Int) {
        self.base = base
        splitter = LineSplitter(maximumLength: maximumLineLength)
    }

    /// Reads lines until `transform` makes something of one.
    ///
    /// - Parameters:
    ///   - state: What `transform` changes as it reads the lines.
    ///   - readsUnterminatedLine: Whether a last line without a terminator is read; when not, it is dropped.
    ///   - transform: Takes the state, a line without its terminator and the line's number, counted from 1; returns
    ///     `nil` to go on to the next line.
    /// - Returns: The first result of `transform`, or `nil` when the base ended first.
    /// - Throws: `CancellationError` when the task is cancelled; ``StreamParseError`` for a line longer than the
    ///   limit; what the base and `transform` throw.
    mutating func next<State, Result>(
        _ state: inout State,
        readsUnterminatedLine: Bool,
        _ transform: (inout State, UnsafeBufferPointer<UInt8>, Int) throws -> Result?
    ) async throws -> Result? {
        guard !finished else { return nil }
        do {
            while true {
                try Task.checkCancellation()
                var result: Result?
                try splitter.forEachLine(&state) { state, line, number in
                    result = try transform(&state, line, number)
                    return result == nil
                }
                if let result {
                    return result
                }
                guard let chunk = try await base.next() else {
                    finished = true
                    return readsUnterminatedLine ? try splitter.finish(&state, transform) : nil
                }
                splitter.append(chunk)
            }
        } catch {
            finished = true
            throw error
        }
    }
}

extension LineReader: Sendable where Base: Sendable {}
