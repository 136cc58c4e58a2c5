/// Sluice's strict RFC 8259 parser: validates a document and builds the tape of a ``JSONStorage`` over a copy of
/// its bytes, in one pass and without recursion.
///
/// It accepts exactly the grammar of RFC 8259 with UTF-8 input: no comments, no trailing commas, no leading
/// zeros or bare signs, no unescaped control characters in strings, well-formed UTF-8 and `\u` escapes with
/// paired surrogates only. Numbers and strings are validated here and converted when read.
struct JSONParser {
    private let bytes: UnsafePointer<UInt8>
    private let count: Int
    private let maximumDepth: Int
    private var tape: UnsafeMutablePointer<UInt32>
    private var tapeCapacity: Int
    private var entries = 0
    private var position = 0

    /// A parser over `count` bytes with the padding after them, and a tape for `entryBound` entries.
    ///
    /// The tape is sized once, from a count of the bytes that can start or end an entry (see
    /// ``entryBound(copying:to:count:)``), so that it never grows while the document is parsed: a doubling tape
    /// peaks at three times its final size while the old one is copied.
    private init(bytes: UnsafePointer<UInt8>, count: Int, maximumDepth: Int, entryBound: Int) {
        self.bytes = bytes
        self.count = count
        self.maximumDepth = maximumDepth
        (self.tape, self.tapeCapacity) = JSONParser.allocateTape(capacity: entryBound)
    }

    /// An upper bound on the number of entries the parser can append for a document, valid or not.
    ///
    /// A string entry takes two quotes; a container entry, its opening bracket; a number or a literal is followed by
    /// a comma or a closing bracket, except the last value of the document; each of these bytes is counted once, so
    /// `quotes / 2 + structural + 1` bounds the entries. Bytes inside strings are counted too, which only loosens
    /// the bound: ``shrinkTape()`` returns the unused end of the tape. Sixteen bytes are compared at a time, and
    /// copied to `copy` in the same pass, so that the document is read once before it is parsed.
    static func entryBound(copying bytes: UnsafePointer<UInt8>, to copy: UnsafeMutablePointer<UInt8>, count: Int) -> Int
    {
        // Each byte adds 1 for a quote and 2 for a comma or bracket to a lane, so 127 blocks fit a byte lane.
        var twice = 0
        var index = 0
        let raw = UnsafeRawPointer(bytes)
        let destination = UnsafeMutableRawPointer(copy)
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let comma = SIMD16<UInt8>(repeating: UInt8(ascii: ","))
        let openBracket = SIMD16<UInt8>(repeating: UInt8(ascii: "{"))
        let closeBracket = SIMD16<UInt8>(repeating: UInt8(ascii: "}"))
        let caseBit = SIMD16<UInt8>(repeating: 0x20)
        while index &+ 16 <= count {
            var lanes = SIMD16<UInt8>()
            let end = min(count &- 15, index &+ 127 &* 16)
            while index < end {
                let block = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
                destination.storeBytes(of: block, toByteOffset: index, as: SIMD16<UInt8>.self)
                // '[' and ']' are '{' and '}' without bit 5.
                let folded = block | caseBit
                let structural = (folded .== openBracket) .| (folded .== closeBracket) .| (block .== comma)
                // A true lane of a mask is all ones, -1: subtracting it adds one.
                lanes &-= unsafeBitCast(block .== quote, to: SIMD16<UInt8>.self)
                let structuralLanes = unsafeBitCast(structural, to: SIMD16<UInt8>.self)
                lanes &-= structuralLanes &+ structuralLanes
                index &+= 16
            }
            twice &+= Int(SIMD16<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
        }
        while index < count {
            let byte = bytes[index]
            copy[index] = byte
            if byte == UInt8(ascii: "\"") {
                twice &+= 1
            } else if byte == UInt8(ascii: ",") || byte | 0x20 == UInt8(ascii: "{") || byte | 0x20 == UInt8(ascii: "}")
            {
                twice &+= 2
            }
            index &+= 1
        }
        return twice / 2 &+ 2
    }

    /// A tape of at least `capacity` entries, from ``JSONBufferRecycler`` (and so from `malloc`, so that it can be
    /// shrunk in place with `realloc`), and the entries it has room for.
    private static func allocateTape(capacity: Int) -> (tape: UnsafeMutablePointer<UInt32>, capacity: Int) {
        let (memory, size) = JSONBufferRecycler.allocate(capacity &* JSONParser.entryBytes)
        let entries = size / JSONParser.entryBytes
        return (memory.bindMemory(to: UInt32.self, capacity: JSONStorage.entryWords &* entries), entries)
    }

    /// Bytes a tape entry takes.
    private static let entryBytes = JSONStorage.entryWords &* MemoryLayout<UInt32>.size

    /// Returns the unused end of the tape to the allocator, when it is more than half the tape.
    ///
    /// The pages past the last entry were never written, so they hold no memory until the allocator hands them out
    /// again; returning them costs a call, which is worth it only when the bound was loose (strings full of commas,
    /// say). For a large tape (one the allocator maps on its own) this unmaps the pages in place.
    private mutating func shrinkTape() {
        guard entries < tapeCapacity / 2, let smaller = realloc(tape, max(1, entries) &* JSONParser.entryBytes) else {
            return
        }
        tape = smaller.bindMemory(to: UInt32.self, capacity: JSONStorage.entryWords &* max(1, entries))
        tapeCapacity = max(1, entries)
    }

    /// Parses a document into storage that owns a padded copy of the bytes.
    static func parse(
        _ input: UnsafeRawBufferPointer,
        maximumDepth: Int,
        maximumSize: Int
    ) throws(JSONError) -> JSONStorage {
        // Checked before the copy, so that an oversized body costs nothing more than the message's first line.
        guard input.count <= min(maximumSize, JSONStorage.maximumByteCount) else {
            let limit =
                maximumSize <= JSONStorage.maximumByteCount
                ? "the limit of \(maximumSize)"
                : "\(JSONStorage.maximumByteCount), the most a parsed document can index with its 32-bit offsets"
            throw JSONError(
                .sizeLimitExceeded,
                "the document is \(input.count) bytes, more than \(limit)",
                at: 0,
                in: UnsafeBufferPointer(
                    start: input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    count: min(input.count, 256)
                )
            )
        }
        let (memory, copySize) = JSONBufferRecycler.allocate(input.count + JSONStorage.padding)
        let copy = memory.bindMemory(to: UInt8.self, capacity: copySize)
        // An empty input may have no address; nothing is read from it then.
        let source = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(copy)
        let bound = entryBound(copying: source, to: copy, count: input.count)
        (copy + input.count).initialize(repeating: 0, count: JSONStorage.padding)
        var parser = JSONParser(bytes: copy, count: input.count, maximumDepth: maximumDepth, entryBound: bound)
        do {
            try parser.parseDocument()
        } catch {
            JSONBufferRecycler.release(UnsafeMutableRawPointer(parser.tape), size: parser.tapeCapacity &* entryBytes)
            let located = JSONError(
                error.code,
                error.reason,
                at: error.offset,
                in: UnsafeBufferPointer(start: copy, count: input.count)
            )
            JSONBufferRecycler.release(memory, size: copySize)
            throw located
        }
        parser.shrinkTape()
        return JSONStorage(
            bytes: (copy, copySize),
            byteCount: input.count,
            tape: (parser.tape, parser.tapeCapacity &* entryBytes),
            entryCount: parser.entries
        )
    }

    // MARK: - Tape

    /// Appends an entry; `word2` is a string's or number's length, or an open container's parent entry plus one.
    @inline(__always)
    private mutating func append(_ tag: JSONStorage.Tag, flags: UInt8 = 0, offset: Int, word2: Int = 0) {
        if entries == tapeCapacity {
            grow()
        }
        tape[JSONStorage.word(0, of: entries)] = UInt32(truncatingIfNeeded: offset)
        tape[JSONStorage.word(1, of: entries)] =
            UInt32(tag.rawValue) &<< JSONStorage.tagShift | UInt32(flags) &<< JSONStorage.flagsShift
        tape[JSONStorage.word(2, of: entries)] = UInt32(truncatingIfNeeded: word2)
        entries &+= 1
    }

    /// Doubles the tape.
    ///
    /// ``entryBound(copying:to:count:)`` makes this unreachable; it stays as the safe answer should the
    /// bound ever be wrong.
    private mutating func grow() {
        guard let bigger = realloc(tape, tapeCapacity &* 2 &* JSONParser.entryBytes) else {
            fatalError("out of memory for a JSON tape of \(2 &* tapeCapacity) entries")
        }
        tape = bigger.bindMemory(to: UInt32.self, capacity: JSONStorage.entryWords &* 2 &* tapeCapacity)
        tapeCapacity &*= 2
    }

    // MARK: - Structure

    /// What the parser knows of an error; ``parse(_:maximumDepth:maximumSize:)`` turns it into a ``JSONError``
    /// with the line, column and excerpt.
    struct Failure: Error {
        let code: JSONError.Code
        let reason: String
        let offset: Int
    }

    private func fail(_ code: JSONError.Code, _ reason: String, at offset: Int) -> Failure {
        Failure(code: code, reason: reason, offset: offset)
    }

    private func found(_ offset: Int) -> String {
        guard offset < count else { return "end of input" }
        let byte = bytes[offset]
        guard byte >= 0x80 else { return JSONError.describe(byte: byte) }
        // A character outside ASCII is named by its code point, when the bytes there are valid UTF-8.
        let sequence = UnsafeBufferPointer(start: bytes + offset, count: min(4, count - offset))
        var decoder = UTF8()
        var iterator = sequence.makeIterator()
        guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return JSONError.describe(byte: byte) }
        return JSONError.describe(scalar: scalar)
    }

    private func unexpected(_ expected: String, at offset: Int) -> Failure {
        fail(
            offset >= count ? .unexpectedEnd : .unexpectedCharacter,
            "expected \(expected), found \(found(offset))",
            at: offset
        )
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while true {
            let byte = bytes[position]
            // Every whitespace byte is at most a space, so most calls, in compact documents, end at this compare.
            if byte > UInt8(ascii: " ") {
                return
            }
            if byte == UInt8(ascii: " ") {
                // Indentation comes in runs of spaces: skip them eight at a time (the padding makes the load safe).
                let word = UnsafeRawPointer(bytes + position).loadUnaligned(as: UInt64.self)
                let others = UInt64(littleEndian: word) ^ 0x2020_2020_2020_2020
                position &+= others == 0 ? 8 : others.trailingZeroBitCount &>> 3
            } else if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
                position &+= 1
            } else {
                return
            }
        }
    }

    private enum State {
        case value
        case key
        case afterValue
    }

    private mutating func parseDocument() throws(Failure) {
        // A UTF-8 byte order mark, which some servers send, is not part of the value (RFC 8259, 8.1, lets a
        // parser ignore it). Offsets stay those of the input.
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
        }
        skipWhitespace()
        if position >= count {
            throw fail(
                .emptyInput,
                "expected a JSON value, found \(count == 0 ? "no input" : "only whitespace")",
                at: 0
            )
        }
        // The innermost open container's entry, or -1. While a container is open, word 2 of its entry holds the
        // entry of its parent plus one (and word 1 its element count so far), so that the tape itself is the stack
        // of open containers and parsing needs no other memory.
        var top = -1
        var depth = 0
        var state = State.value
        while true {
            switch state {
            case .value:
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    try parseString()
                    state = .afterValue
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                    try parseNumber()
                    state = .afterValue
                case UInt8(ascii: "t"):
                    try parseLiteral("true", tag: .true)
                    state = .afterValue
                case UInt8(ascii: "f"):
                    try parseLiteral("false", tag: .false)
                    state = .afterValue
                case UInt8(ascii: "n"):
                    try parseLiteral("null", tag: .null)
                    state = .afterValue
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    let isObject = byte == UInt8(ascii: "{")
                    if depth >= maximumDepth {
                        throw fail(
                            .depthLimitExceeded,
                            "arrays and objects are nested more than \(maximumDepth) deep",
                            at: position
                        )
                    }
                    let opened = entries
                    append(isObject ? .object : .array, offset: position, word2: top &+ 1)
                    top = opened
                    depth &+= 1
                    position &+= 1
                    skipWhitespace()
                    let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if bytes[position] == closer {
                        position &+= 1
                        top = close(top)
                        depth &-= 1
                        state = .afterValue
                    } else {
                        state = isObject ? .key : .value
                    }
                default:
                    throw unexpected("a value", at: position)
                }
            case .key:
                guard bytes[position] == UInt8(ascii: "\"") else {
                    throw unexpected("a string key", at: position)
                }
                try parseString()
                skipWhitespace()
                guard bytes[position] == UInt8(ascii: ":") else {
                    throw unexpected("':' after an object key", at: position)
                }
                position &+= 1
                skipWhitespace()
                state = .value
            case .afterValue:
                guard top >= 0 else {
                    skipWhitespace()
                    if position < count {
                        throw fail(
                            .trailingContent,
                            "expected end of input after the value, found \(found(position))",
                            at: position
                        )
                    }
                    return
                }
                let word1 = tape[JSONStorage.word(1, of: top)]
                if word1 & JSONStorage.countOverflow != JSONStorage.countOverflow {
                    tape[JSONStorage.word(1, of: top)] = word1 &+ 1
                }
                skipWhitespace()
                let byte = bytes[position]
                let isObject = word1 &>> JSONStorage.tagShift == UInt32(JSONStorage.Tag.object.rawValue)
                if byte == UInt8(ascii: ",") {
                    position &+= 1
                    skipWhitespace()
                    state = isObject ? .key : .value
                } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position &+= 1
                    top = close(top)
                    depth &-= 1
                } else {
                    throw unexpected(
                        isObject ? "',' or '}' after an object member" : "',' or ']' after an array element",
                        at: position
                    )
                }
            }
        }
    }

    /// Closes a container: word 2 of its entry becomes the entry after its last descendant.
    ///
    /// - Returns: The entry of the container's parent, or -1.
    @inline(__always)
    private mutating func close(_ entry: Int) -> Int {
        let parent = Int(truncatingIfNeeded: tape[JSONStorage.word(2, of: entry)]) &- 1
        tape[JSONStorage.word(2, of: entry)] = UInt32(truncatingIfNeeded: entries)
        return parent
    }

    private mutating func parseLiteral(_ literal: StaticString, tag: JSONStorage.Tag) throws(Failure) {
        let start = position
        let length = literal.utf8CodeUnitCount
        for index in 0..<length where bytes[start &+ index] != literal.utf8Start[index] {
            throw fail(
                start &+ index >= count ? .unexpectedEnd : .unexpectedCharacter,
                "expected '\(literal)', found \(found(start &+ index))",
                at: start &+ index
            )
        }
        append(tag, offset: start)
        position = start &+ length
    }

    // MARK: - Numbers

    @inline(__always)
    private func isDigit(_ offset: Int) -> Bool {
        bytes[offset] &- UInt8(ascii: "0") < 10
    }

    private mutating func parseNumber() throws(Failure) {
        let start = position
        var flags = JSONStorage.numberIsInteger
        var cursor = start
        if bytes[cursor] == UInt8(ascii: "-") {
            flags |= JSONStorage.numberIsNegative
            cursor &+= 1
        }
        if bytes[cursor] == UInt8(ascii: "0") {
            cursor &+= 1
            if isDigit(cursor) {
                throw fail(.invalidNumber, "leading zeros are not allowed in a number", at: cursor - 1)
            }
        } else if isDigit(cursor) {
            cursor &+= 1
            while isDigit(cursor) {
                cursor &+= 1
            }
        } else {
            throw fail(.invalidNumber, "expected a digit after '-', found \(found(cursor))", at: cursor)
        }
        if bytes[cursor] == UInt8(ascii: ".") {
            flags &= ~JSONStorage.numberIsInteger
            cursor &+= 1
            guard isDigit(cursor) else {
                throw fail(
                    .invalidNumber,
                    "expected a digit after the decimal point, found \(found(cursor))",
                    at: cursor
                )
            }
            while isDigit(cursor) {
                cursor &+= 1
            }
        }
        if bytes[cursor] | 0x20 == UInt8(ascii: "e") {
            flags &= ~JSONStorage.numberIsInteger
            cursor &+= 1
            if bytes[cursor] == UInt8(ascii: "+") || bytes[cursor] == UInt8(ascii: "-") {
                cursor &+= 1
            }
            guard isDigit(cursor) else {
                throw fail(.invalidNumber, "expected a digit in the exponent, found \(found(cursor))", at: cursor)
            }
            while isDigit(cursor) {
                cursor &+= 1
            }
        }
        append(.number, flags: flags, offset: start, word2: cursor &- start)
        position = cursor
    }

    // MARK: - Strings

    /// Whether any byte of a word is a quote, a backslash, a control character or non-ASCII.
    ///
    /// The lowest flagged byte is exact; bytes above it may be flagged falsely by borrows, which the caller never
    /// relies on.
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let hasQuote = (quote &- ones) & ~quote
        let hasBackslash = (backslash &- ones) & ~backslash
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & high
    }

    /// The offset of the first byte at or after `start` that is a quote, a backslash, a control character or
    /// non-ASCII: what ends a run of plain ASCII in a string.
    ///
    /// The first eight bytes are checked as one word, which answers sooner than a vector for the short strings most
    /// documents are made of (names, keys, dates); past them, sixteen bytes are compared at a time. The padding after
    /// the document makes the loads safe at its end, where the first padding byte, a zero, stops the scan.
    @inline(__always)
    private func endOfPlainASCII(from start: Int) -> Int {
        let word = UInt64(littleEndian: UnsafeRawPointer(bytes + start).loadUnaligned(as: UInt64.self))
        let flagged = JSONParser.specialBytes(word)
        if flagged != 0 {
            return start &+ flagged.trailingZeroBitCount &>> 3
        }
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        // A byte below 0x20 or from 0x80 up wraps, less 0x20, to 0x60 or more.
        let controlShift = SIMD16<UInt8>(repeating: 0x20)
        let plainLimit = SIMD16<UInt8>(repeating: 0x60)
        var cursor = start &+ 8
        while true {
            let block = UnsafeRawPointer(bytes + cursor).loadUnaligned(as: SIMD16<UInt8>.self)
            let special = (block .== quote) .| (block .== backslash) .| ((block &- controlShift) .>= plainLimit)
            // A true lane is all ones, so each half read as a little-endian word has its first special byte's bits
            // lowest.
            let halves = unsafeBitCast(special, to: SIMD2<UInt64>.self)
            let low = UInt64(littleEndian: halves[0])
            if low != 0 {
                return cursor &+ low.trailingZeroBitCount &>> 3
            }
            let high = UInt64(littleEndian: halves[1])
            if high != 0 {
                return cursor &+ 8 &+ high.trailingZeroBitCount &>> 3
            }
            cursor &+= 16
        }
    }

    private mutating func parseString() throws(Failure) {
        let start = position &+ 1
        var cursor = start
        var flags = JSONStorage.stringIsASCII
        while true {
            cursor = endOfPlainASCII(from: cursor)
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") {
                break
            } else if byte == UInt8(ascii: "\\") {
                flags |= JSONStorage.stringHasEscapes
                cursor = try validateEscape(at: cursor)
            } else if byte < 0x20 {
                if cursor >= count {
                    throw fail(.unexpectedEnd, "unterminated string, expected '\"'", at: cursor)
                }
                throw fail(
                    .invalidString,
                    "control character \(JSONError.describe(byte: byte)) must be escaped in a string",
                    at: cursor
                )
            } else if byte >= 0x80 {
                flags &= ~JSONStorage.stringIsASCII
                cursor = try validateUTF8Run(at: cursor)
            } else {
                // Not reached: the scan stops only at the bytes above. Stepping on keeps the loop finite regardless.
                cursor &+= 1
            }
        }
        append(.string, flags: flags, offset: start, word2: cursor &- start)
        position = cursor &+ 1
    }

    /// Validates the escape at `cursor` (a backslash) and returns the offset after it.
    private func validateEscape(at cursor: Int) throws(Failure) -> Int {
        switch bytes[cursor &+ 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return cursor &+ 2
        case UInt8(ascii: "u"):
            let unit = try hexQuad(at: cursor &+ 2)
            switch unit {
            case 0xD800...0xDBFF:
                guard bytes[cursor &+ 6] == UInt8(ascii: "\\"), bytes[cursor &+ 7] == UInt8(ascii: "u") else {
                    throw fail(
                        .invalidUnicode,
                        "high surrogate \\u\(JSONParser.hex(unit)) must be followed by a low surrogate escape",
                        at: cursor
                    )
                }
                let low = try hexQuad(at: cursor &+ 8)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw fail(
                        .invalidUnicode,
                        "high surrogate \\u\(JSONParser.hex(unit)) is followed by \\u\(JSONParser.hex(low)), "
                            + "not a low surrogate",
                        at: cursor &+ 6
                    )
                }
                return cursor &+ 12
            case 0xDC00...0xDFFF:
                throw fail(
                    .invalidUnicode,
                    "low surrogate \\u\(JSONParser.hex(unit)) without a preceding high surrogate",
                    at: cursor
                )
            default:
                return cursor &+ 6
            }
        default:
            if cursor &+ 1 >= count {
                throw fail(.unexpectedEnd, "unterminated escape sequence at end of input", at: cursor)
            }
            throw fail(
                .invalidEscape,
                "invalid escape '\\\(JSONParser.printable(bytes[cursor &+ 1]))', expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u",
                at: cursor
            )
        }
    }

    private func hexQuad(at offset: Int) throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for index in offset..<offset &+ 4 {
            guard let digit = JSONParser.hexValue(bytes[index]) else {
                throw fail(
                    index >= count ? .unexpectedEnd : .invalidUnicode,
                    "expected 4 hexadecimal digits after '\\u', found \(found(index))",
                    at: index
                )
            }
            value = value &<< 4 | UInt16(digit)
        }
        return value
    }

    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    private static func hex(_ unit: UInt16) -> String {
        String(unit, radix: 16, uppercase: true).leftPadded(to: 4)
    }

    private static func hexByte(_ byte: UInt8) -> String {
        String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "x" + String(byte, radix: 16)
    }

    /// Validates the UTF-8 sequences from `cursor` (a byte of 0x80 or more) up to the next ASCII byte and returns
    /// its offset.
    ///
    /// Text outside ASCII comes in runs (a Japanese sentence, say): two- and three-byte sequences whose every byte is
    /// in range are stepped over here; anything else, errors included, goes through ``validateUTF8(at:)``. The
    /// padding's zeros are not continuation bytes, so no sequence is accepted past the end.
    @inline(__always)
    private func validateUTF8Run(at start: Int) throws(Failure) -> Int {
        var cursor = start
        while true {
            let lead = bytes[cursor]
            if lead < 0x80 {
                return cursor
            }
            let second = bytes[cursor &+ 1]
            if lead &- 0xC2 <= 0xDF - 0xC2, second & 0xC0 == 0x80 {
                cursor &+= 2
                continue
            }
            // E1 to EF but not ED: every continuation byte from 80 to BF is allowed.
            if lead &- 0xE1 <= 0xEF - 0xE1, lead != 0xED, second & 0xC0 == 0x80, bytes[cursor &+ 2] & 0xC0 == 0x80 {
                cursor &+= 3
                continue
            }
            cursor = try validateUTF8(at: cursor)
        }
    }

    /// Validates one UTF-8 sequence starting at `cursor` (a byte of 0x80 or more) and returns the offset after it.
    private func validateUTF8(at cursor: Int) throws(Failure) -> Int {
        let lead = bytes[cursor]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3:
            length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default:
            throw fail(
                .invalidUTF8,
                "byte 0x\(JSONParser.hexByte(lead)) cannot start a UTF-8 sequence",
                at: cursor
            )
        }
        if cursor &+ length > count {
            throw fail(.unexpectedEnd, "input ends inside a UTF-8 sequence", at: cursor)
        }
        let second = bytes[cursor &+ 1]
        guard second >= lower, second <= upper else {
            throw fail(
                .invalidUTF8,
                "malformed UTF-8 sequence starting with byte 0x\(JSONParser.hexByte(lead))",
                at: cursor
            )
        }
        for index in 2..<length where bytes[cursor &+ index] & 0xC0 != 0x80 {
            throw fail(
                .invalidUTF8,
                "malformed UTF-8 sequence starting with byte 0x\(JSONParser.hexByte(lead))",
                at: cursor
            )
        }
        return cursor &+ length
    }
}
