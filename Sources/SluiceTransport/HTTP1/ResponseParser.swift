/// A response's head as the parser read it: status, reason, fields, and how the connection continues.
package struct ParsedHead {
    /// The status code, 100 to 999.
    package var status: Int
    /// The header fields in the order they came, names as sent.
    package var fields: [(name: String, value: String)]
    /// Whether the connection may carry another request after this response.
    package var keepAlive: Bool
    /// The body's length when the head announces one; `nil` for a chunked body or one read to the close.
    package var contentLength: Int64?
}

/// A response that breaks HTTP/1.1 or passes one of the transport's limits, in words that say what and where.
package struct ResponseProtocolError: Error, Equatable {
    /// What was wrong, such as `malformed status line "HTTP/1.1 2x0 OK"`.
    package var message: String
}

/// The limits a response head, and its trailers, are held to.
package struct HeadLimits {
    /// The longest status line, in bytes, its line end excluded.
    package var statusLineLength: Int
    /// The most header fields, and the most trailer fields.
    package var headerCount: Int
    /// The most bytes in the whole head (status line, fields and line ends), and in the trailers.
    package var headBytes: Int
    /// The longest the head may take from its first byte to its end, if limited.
    ///
    /// The connection holds the head to it, since the parser has no clock.
    package var headTime: Duration? = nil

    /// Creates limits; the transport takes them from its configuration, the fuzzer's support sets tight ones.
    package init(statusLineLength: Int, headerCount: Int, headBytes: Int, headTime: Duration? = nil) {
        self.statusLineLength = statusLineLength
        self.headerCount = headerCount
        self.headBytes = headBytes
        self.headTime = headTime
    }
}

/// Reads HTTP/1.1 responses from bytes as they arrive, in pieces of any size: the head, then the body framed by
/// `Content-Length`, chunked transfer coding (trailers read and ignored), or the connection's close.
///
/// It is strict where a lenient reading could take one response for another: a malformed status line, a field
/// without a colon or with a folded continuation, both `Content-Length` and `Transfer-Encoding`, a length that is
/// not a number or overflows, differing lengths, a chunk size that is not hex, and chunk data not followed by a
/// line end are errors. A bare LF ends a line as CRLF does (RFC 9112, section 2.2). Informational (1xx) heads other
/// than 101 are skipped; HEAD responses and 204 and 304 have no body.
package struct ResponseParser {
    /// What the parser reports as it reads.
    package enum Event {
        /// The head of the final response arrived.
        case head(ParsedHead)
        /// Body bytes, valid during the call only.
        case body(UnsafeRawBufferPointer)
        /// The response is complete.
        case end
    }

    private enum State {
        case statusLine
        case fields
        case length(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd
        case trailers
        case untilClose
        case complete
    }

    private let limits: HeadLimits
    private let isHeadRequest: Bool
    private var state = State.statusLine
    private var line: [UInt8] = []
    private var headBytes = 0
    /// The bytes and fields of the trailers so far, held to the head's limits.
    private var trailerBytes = 0
    private var trailerCount = 0
    private var head = ParsedHead(status: 0, fields: [], keepAlive: true)
    private var minorVersion = 1
    private var announcedLength: Int64 = 0
    private var bodyBytes: Int64 = 0

    /// Creates a parser for the response to one request.
    ///
    /// - Parameters:
    ///   - limits: The limits on the head.
    ///   - isHeadRequest: Whether the request was HEAD, whose response has no body whatever it announces.
    package init(limits: HeadLimits, isHeadRequest: Bool) {
        self.limits = limits
        self.isHeadRequest = isHeadRequest
    }

    /// Creates a parser for the response to a request that asks to switch protocols (a WebSocket's opening
    /// handshake): a 101 head ends the response, and the bytes after it belong to the new protocol.
    ///
    /// - Parameter limits: The limits on the head.
    package init(upgradeWithLimits limits: HeadLimits) {
        self.init(limits: limits, isHeadRequest: false)
        acceptsUpgrade = true
    }

    /// Whether a 101 head is the final one.
    private var acceptsUpgrade = false

    /// Whether any byte of a response has been read.
    package var hasStarted: Bool { headBytes > 0 || !line.isEmpty }

    /// Whether the response has ended.
    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// The body bytes read so far.
    package var bodyBytesRead: Int64 { bodyBytes }

    /// Reads bytes, reporting what they complete.
    ///
    /// - Parameters:
    ///   - bytes: The bytes, in the order they arrived.
    ///   - report: Called for each event; it may throw to stop reading.
    /// - Returns: How many bytes belong to the response; fewer than given when the response ended before them.
    /// - Throws: ``ResponseProtocolError`` for a response that breaks the protocol or a limit, or what `report`
    ///   throws.
    package mutating func parse(
        _ bytes: UnsafeRawBufferPointer,
        _ report: (Event) throws -> Void
    ) throws -> Int {
        var offset = 0
        while offset < bytes.count {
            switch state {
            case .statusLine, .fields, .chunkSize, .trailers:
                guard try takeLine(from: bytes, at: &offset, report) else { return bytes.count }
            case .length(let remaining):
                let take = Int(min(Int64(bytes.count - offset), remaining))
                try deliver(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]), report)
                offset += take
                if remaining == Int64(take) {
                    state = .complete
                    try report(.end)
                } else {
                    state = .length(remaining: remaining - Int64(take))
                }
            case .chunkData(let remaining):
                let take = Int(min(Int64(bytes.count - offset), remaining))
                try deliver(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]), report)
                offset += take
                state = remaining == Int64(take) ? .chunkDataEnd : .chunkData(remaining: remaining - Int64(take))
            case .chunkDataEnd:
                // The CRLF (or LF) after a chunk's data.
                let byte = bytes[offset]
                offset += 1
                if byte == UInt8(ascii: "\r") && line.isEmpty {
                    line.append(byte)
                } else if byte == UInt8(ascii: "\n") {
                    line.removeAll(keepingCapacity: true)
                    state = .chunkSize
                } else {
                    throw ResponseProtocolError(message: "chunk data was not followed by a line end")
                }
            case .untilClose:
                try deliver(UnsafeRawBufferPointer(rebasing: bytes[offset...]), report)
                offset = bytes.count
            case .complete:
                return offset
            }
        }
        return offset
    }

    /// Ends the response at the close of the connection.
    ///
    /// - Parameter report: Called with ``Event/end`` when the close completes a body read to it.
    /// - Throws: ``ResponseProtocolError`` saying how far the response had come when the close cut it short.
    package mutating func parseEndOfStream(_ report: (Event) throws -> Void) throws {
        switch state {
        case .untilClose:
            state = .complete
            try report(.end)
        case .complete:
            return
        case .statusLine where !hasStarted:
            throw ResponseProtocolError(message: "the server closed the connection without sending a response")
        case .statusLine, .fields:
            throw ResponseProtocolError(message: "the server closed the connection in the middle of the response head")
        case .length:
            throw ResponseProtocolError(
                message: "the server closed the connection after \(bodyBytes) of \(announcedLength) bytes of the body"
            )
        case .chunkSize, .chunkData, .chunkDataEnd, .trailers:
            throw ResponseProtocolError(
                message:
                    "the server closed the connection after \(bodyBytes) bytes of a chunked body, before its last chunk"
            )
        }
    }

    private mutating func deliver(_ bytes: UnsafeRawBufferPointer, _ report: (Event) throws -> Void) throws {
        guard !bytes.isEmpty else { return }
        bodyBytes += Int64(bytes.count)
        try report(.body(bytes))
    }

    /// Reads the rest of a line and processes it without its line end; returns `false` when the bytes end first, the
    /// part read kept in `line`.
    ///
    /// A line whole in the bytes is processed where it lies; only one split between reads is gathered.
    private mutating func takeLine(
        from bytes: UnsafeRawBufferPointer,
        at offset: inout Int,
        _ report: (Event) throws -> Void
    ) throws -> Bool {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
            line.append(contentsOf: rest)
            offset = bytes.count
            try count(rest.count, lineCount: line.count, endsWithCR: line.last == UInt8(ascii: "\r"))
            return false
        }
        offset += newline + 1
        guard !line.isEmpty else {
            let content = UnsafeRawBufferPointer(rebasing: rest[..<newline])
            let endsWithCR = content.last == UInt8(ascii: "\r")
            try count(newline + 1, lineCount: content.count, endsWithCR: endsWithCR)
            try process(line: endsWithCR ? UnsafeRawBufferPointer(rebasing: content.dropLast()) : content, report)
            return true
        }
        line.append(contentsOf: rest[..<newline])
        let endsWithCR = line.last == UInt8(ascii: "\r")
        try count(newline + 1, lineCount: line.count, endsWithCR: endsWithCR)
        // Taken out of `self` while it is read, and its storage given back afterwards for the next split line.
        var complete: [UInt8] = []
        swap(&complete, &line)
        defer {
            swap(&complete, &line)
            line.removeAll(keepingCapacity: true)
        }
        try complete.withUnsafeBytes { whole in
            try process(line: endsWithCR ? UnsafeRawBufferPointer(rebasing: whole.dropLast()) : whole, report)
        }
        return true
    }

    /// Counts head (or trailer) bytes against the limits.
    ///
    /// - Parameters:
    ///   - bytes: The bytes just read.
    ///   - lineCount: The bytes of the current line so far, a CR it ends with included, its LF not.
    ///   - endsWithCR: Whether those end with a CR, which belongs to the line end.
    /// - Throws: ``ResponseProtocolError`` when the head, a status line, a chunk-size line or the trailers pass their
    ///   limit.
    private mutating func count(_ bytes: Int, lineCount: Int, endsWithCR: Bool) throws {
        headBytes += bytes
        switch state {
        case .statusLine, .fields:
            // A CR the line ends with belongs to its line end, which the limit leaves out.
            let lineEnd = endsWithCR ? 1 : 0
            if case .statusLine = state, lineCount - lineEnd > limits.statusLineLength {
                throw ResponseProtocolError(
                    message: "the status line is longer than the limit of \(limits.statusLineLength) bytes"
                )
            }
            if headBytes > limits.headBytes {
                throw ResponseProtocolError(
                    message: "the response head is larger than the limit of \(limits.headBytes) bytes"
                )
            }
        case .chunkSize where lineCount > 4_096:
            throw ResponseProtocolError(message: "a chunk-size line is longer than the limit of 4096 bytes")
        case .trailers:
            trailerBytes += bytes
            if trailerBytes > limits.headBytes {
                throw ResponseProtocolError(
                    message: "the trailers are larger than the limit of \(limits.headBytes) bytes"
                )
            }
        default:
            break
        }
    }

    private mutating func process(line: UnsafeRawBufferPointer, _ report: (Event) throws -> Void) throws {
        switch state {
        case .statusLine:
            try parseStatusLine(line)
            state = .fields
        case .fields:
            if line.isEmpty {
                try finishHead(report)
            } else {
                try parseField(line)
            }
        case .chunkSize:
            let size = try parseChunkSize(line)
            if size == 0 {
                state = .trailers
            } else {
                state = .chunkData(remaining: size)
            }
        case .trailers:
            if line.isEmpty {
                state = .complete
                try report(.end)
            } else {
                // Read to be checked, then dropped: no trailer field is handed on.
                _ = try Self.field(in: line, of: "trailer")
                trailerCount += 1
                guard trailerCount <= limits.headerCount else {
                    throw ResponseProtocolError(
                        message: "the response has more than the limit of \(limits.headerCount) trailer fields"
                    )
                }
            }
        default:
            break
        }
    }

    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) throws {
        func malformed() -> ResponseProtocolError {
            ResponseProtocolError(message: "malformed status line \(Self.quoted(line))")
        }
        // "HTTP/1.x SSS" then the end or a space and a reason.
        guard line.count >= 12, line.starts(with: "HTTP/1.".utf8),
            let minor = line[7].asciiDigit, line[8] == UInt8(ascii: " "),
            let hundreds = line[9].asciiDigit, let tens = line[10].asciiDigit, let units = line[11].asciiDigit,
            line.count == 12 || line[12] == UInt8(ascii: " ")
        else {
            if line.starts(with: "HTTP/".utf8), line.count > 8, line[5] != UInt8(ascii: "1") {
                throw ResponseProtocolError(message: "unsupported HTTP version in status line \(Self.quoted(line))")
            }
            throw malformed()
        }
        let status = hundreds * 100 + tens * 10 + units
        guard status >= 100 else { throw malformed() }
        // The reason phrase: spaces, tabs and visible characters (RFC 9112, section 4), so no bare CR.
        guard !line[12...].contains(where: Self.isControl) else {
            throw ResponseProtocolError(message: "the status line \(Self.quoted(line)) holds a control character")
        }
        minorVersion = minor
        head = ParsedHead(status: status, fields: [], keepAlive: minor >= 1)
        // Room for a server's usual fields at once, rather than grown four times over.
        head.fields.reserveCapacity(12)
    }

    private mutating func parseField(_ line: UnsafeRawBufferPointer) throws {
        let (name, value) = try Self.field(in: line, of: "header")
        guard head.fields.count < limits.headerCount else {
            throw ResponseProtocolError(
                message: "the response has more than the limit of \(limits.headerCount) header fields"
            )
        }
        head.fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// A field line's name and value, the value without the spaces around it, for a header or a trailer alike.
    ///
    /// - Parameters:
    ///   - line: The line, without its line end.
    ///   - kind: `header` or `trailer`, as the error names the line.
    /// - Returns: The name and the value.
    /// - Throws: ``ResponseProtocolError`` for a folded line, a line without a colon, a name that is not a token,
    ///   or a value holding a control character other than a tab.
    private static func field(
        in line: UnsafeRawBufferPointer,
        of kind: String
    ) throws -> (Slice<UnsafeRawBufferPointer>, Slice<UnsafeRawBufferPointer>) {
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") {
            throw ResponseProtocolError(
                message: "a \(kind) field is folded onto a continuation line (\(quoted(line))), which HTTP/1.1 forbids"
            )
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw ResponseProtocolError(message: "a \(kind) line has no colon: \(quoted(line))")
        }
        let name = line[..<colon]
        guard HTTPToken.isToken(name) else {
            throw ResponseProtocolError(message: "a \(kind) name is not a valid token: \(quoted(line))")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            value.removeFirst()
        }
        while let last = value.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            value.removeLast()
        }
        guard !value.contains(where: isControl) else {
            throw ResponseProtocolError(
                message: "the value of \(kind) \(String(decoding: name, as: UTF8.self)) holds a control character"
            )
        }
        return (name, value)
    }

    private mutating func finishHead(_ report: (Event) throws -> Void) throws {
        let status = head.status
        if (100..<200).contains(status) {
            if status == 101 && acceptsUpgrade {
                head.keepAlive = false
                state = .complete
                try report(.head(head))
                try report(.end)
                return
            }
            guard status != 101 else {
                throw ResponseProtocolError(
                    message: "the server switched protocols (101), which this transport does not support"
                )
            }
            // An interim response (100 Continue, 103 Early Hints): the final one follows.
            state = .statusLine
            return
        }
        var closes = false
        var keepsAlive = false
        var lengths: [Substring] = []
        var codings: [Substring] = []
        var hasTransferEncoding = false
        for field in head.fields {
            if Header.namesMatch(field.name, "content-length") {
                FieldList.forEachElement(of: field.value, omittingEmpty: false) { lengths.append($0) }
            } else if Header.namesMatch(field.name, "connection") {
                FieldList.forEachElement(of: field.value, omittingEmpty: true) { token in
                    closes = closes || Header.namesMatch(token, "close")
                    keepsAlive = keepsAlive || Header.namesMatch(token, "keep-alive")
                }
            } else if Header.namesMatch(field.name, "transfer-encoding") {
                // Empty list elements are not codings (RFC 9110, section 5.6.1), but the field is there all the same.
                hasTransferEncoding = true
                // Lowercased as ASCII: Unicode's rules would read "chun\u{212A}ed" (a Kelvin sign) as chunked.
                FieldList.forEachElement(of: field.value, omittingEmpty: true) {
                    codings.append(Substring(Header.asciiLowercased(String($0))))
                }
            }
        }
        head.keepAlive = minorVersion >= 1 ? !closes : keepsAlive
        if hasTransferEncoding && !lengths.isEmpty {
            throw ResponseProtocolError(
                message: "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids"
            )
        }
        let hasNoBody = isHeadRequest || status == 204 || status == 304
        var framing: State
        if !codings.isEmpty {
            // A response without a body may name the codings it would have had (RFC 9112, section 6.1).
            guard codings == ["chunked"] || hasNoBody else {
                throw ResponseProtocolError(
                    message:
                        "unsupported Transfer-Encoding \(Self.quoted(codings.joined(separator: ", "))); only chunked is"
                )
            }
            framing = .chunkSize
        } else if let first = lengths.first {
            guard let length = Self.contentLength(first) else {
                throw ResponseProtocolError(message: "invalid Content-Length \(Self.quoted(String(first)))")
            }
            guard lengths.allSatisfy({ $0 == first }) else {
                throw ResponseProtocolError(
                    message:
                        "the response has differing Content-Length values \(Self.quoted(lengths.joined(separator: ", ")))"
                )
            }
            head.contentLength = length
            announcedLength = length
            framing = .length(remaining: length)
        } else {
            head.keepAlive = false
            framing = .untilClose
        }
        if hasNoBody {
            // No body, whatever the head announces; the connection continues as its Connection field says.
            head.contentLength = nil
            head.keepAlive = minorVersion >= 1 ? !closes : keepsAlive
            framing = .complete
        } else if case .length(0) = framing {
            framing = .complete
        }
        if minorVersion == 0 && hasTransferEncoding {
            // HTTP/1.0 has no Transfer-Encoding: a hop may have passed it on without applying it, so the framing may
            // be faulty and the connection ends after the response (RFC 9112, section 6.1).
            head.keepAlive = false
        }
        state = framing
        try report(.head(head))
        if case .complete = framing {
            try report(.end)
        }
    }

    private func parseChunkSize(_ line: UnsafeRawBufferPointer) throws -> Int64 {
        var size: Int64 = 0
        var digits = 0
        for byte in line {
            if let digit = byte.hexDigit {
                guard digits < 15 else {
                    throw ResponseProtocolError(
                        message: "the chunk size \(Self.quoted(line)) overflows a 64-bit length"
                    )
                }
                size = size << 4 | Int64(digit)
                digits += 1
            } else if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                break
            } else {
                digits = 0
                break
            }
        }
        guard digits > 0 else {
            throw ResponseProtocolError(message: "invalid chunk size \(Self.quoted(line)): not a hexadecimal number")
        }
        // Extensions are read past, but not a control character (a bare CR) that a lenient reader could split on.
        guard !line.contains(where: Self.isControl) else {
            throw ResponseProtocolError(message: "the chunk-size line \(Self.quoted(line)) holds a control character")
        }
        return size
    }

    /// Whether a byte is a control character other than the tab, which no line of a response may hold.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// A `Content-Length` value: decimal digits only, within `Int64`.
    private static func contentLength(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }

    /// Text for an error message: in quotes, at most 80 Unicode scalars, control characters shown as escapes.
    static func quoted<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        quoted(String(decoding: bytes, as: UTF8.self))
    }

    /// Text for an error message: in quotes, at most 80 Unicode scalars, control characters shown as escapes.
    ///
    /// Scalars, not characters: a character may hold any number of them, and the message would grow with the line.
    static func quoted(_ text: String) -> String {
        "\"" + printable(text) + "\""
    }

    /// Text from the network for an error message, without quotes: at most 80 Unicode scalars, control characters
    /// shown as escapes, so that none reaches a log or a terminal as itself.
    ///
    /// Scalars, not characters: a character may hold any number of them, and the message would grow with the text.
    static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let shown = scalars.count > 80 ? String(String.UnicodeScalarView(scalars.prefix(80))) + "…" : text
        return shown.unicodeScalars.map { $0.value < 0x20 ? $0.escaped(asASCII: true) : String($0) }.joined()
    }
}

extension UInt8 {
    /// The value of an ASCII decimal digit.
    fileprivate var asciiDigit: Int? {
        self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") ? Int(self - UInt8(ascii: "0")) : nil
    }

    /// The value of an ASCII hexadecimal digit.
    fileprivate var hexDigit: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
