/// Cuts byte chunks into lines, one chunk at a time, for the typed streams.
///
/// A line ends at a line feed, a carriage return, or the pair of them, which counts once even when the carriage
/// return ends one chunk and the line feed starts the next. A line that does not fit in one chunk is gathered in
/// a buffer that never grows past the line limit; a line that does fit is handed out in place, without a copy.
struct LineSplitter {
    /// The most bytes a line may hold, its terminator not counted.
    let maximumLength: Int
    /// How many lines were handed out, terminated or not.
    private(set) var lineNumber = 0
    /// The chunk being read, and how far into it the lines were handed out.
    private var chunk = Data()
    private var position = 0
    /// The start of a line that began in an earlier chunk.
    private var pending: [UInt8] = []
    /// Whether the last line ended with a carriage return, so that a line feed right after it ends nothing.
    private var skipsLineFeed = false

    init(maximumLength: Int) {
        self.maximumLength = max(0, maximumLength)
    }

    /// Whether every byte of the current chunk was handed out or kept in the buffer.
    var needsInput: Bool { position >= chunk.count }

    /// Takes the next chunk to read; call it only when ``needsInput``.
    mutating func append(_ chunk: Data) {
        self.chunk = chunk
        position = 0
    }

    /// Hands each complete line of the input read so far to `body`, until `body` returns `false` or the input
    /// runs out.
    ///
    /// - Parameters:
    ///   - state: What `body` changes as it reads the lines.
    ///   - body: Takes the state, a line without its terminator and the line's number; returns whether to go on to
    ///     the next line.
    /// - Throws: ``StreamParseError/Code/lineTooLong`` when a line is longer than the limit; what `body` throws.
    mutating func forEachLine<State>(
        _ state: inout State,
        _ body: (inout State, UnsafeBufferPointer<UInt8>, Int) throws -> Bool
    ) throws {
        guard position < chunk.count else { return }
        let chunk = self.chunk
        try chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.count
            var index = position
            if skipsLineFeed {
                skipsLineFeed = false
                if bytes[index] == UInt8(ascii: "\n") {
                    index += 1
                }
            }
            while index < end {
                let start = index
                while index < end {
                    let byte = bytes[index]
                    if byte <= UInt8(ascii: "\r"), byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                        break
                    }
                    index += 1
                }
                let length = pending.count + index - start
                if length > maximumLength {
                    throw StreamParseError.lineTooLong(line: lineNumber + 1, limit: maximumLength)
                }
                guard index < end else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    break
                }
                // A line ends here; a line feed right after a carriage return belongs to the same end.
                let lineEnd = index
                index += 1
                if bytes[lineEnd] == UInt8(ascii: "\r") {
                    if index < end {
                        if bytes[index] == UInt8(ascii: "\n") {
                            index += 1
                        }
                    } else {
                        skipsLineFeed = true
                    }
                }
                lineNumber += 1
                let line = UnsafeBufferPointer(rebasing: bytes[start..<lineEnd])
                let goesOn: Bool
                if pending.isEmpty {
                    goesOn = try body(&state, line, lineNumber)
                } else {
                    pending.append(contentsOf: line)
                    let number = lineNumber
                    goesOn = try pending.withUnsafeBufferPointer { try body(&state, $0, number) }
                    pending.removeAll(keepingCapacity: true)
                }
                if !goesOn {
                    position = index
                    return
                }
            }
            position = end
        }
    }

    /// Hands the last line to `body` when the input ended without a terminator after it.
    ///
    /// - Parameters:
    ///   - state: What `body` changes.
    ///   - body: Takes the state, the line and its number.
    /// - Returns: What `body` returned, or `nil` when the input ended with a terminator.
    /// - Throws: What `body` throws.
    mutating func finish<State, Result>(
        _ state: inout State,
        _ body: (inout State, UnsafeBufferPointer<UInt8>, Int) throws -> Result?
    ) rethrows -> Result? {
        guard !pending.isEmpty else { return nil }
        lineNumber += 1
        let number = lineNumber
        defer { pending.removeAll() }
        return try pending.withUnsafeBufferPointer { try body(&state, $0, number) }
    }
}
