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

    enum State {
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

    let limits: HeadLimits
    let isHeadRequest: Bool
    var state = State.statusLine
    private var line: [UInt8] = []
    private var headBytes = 0
    /// The bytes and fields of the trailers so far, held to the head's limits.
    private var trailerBytes = 0
    private var trailerCount = 0
    var head = ParsedHead(status: 0, fields: [], keepAlive: true)
    var minorVersion = 1
    var announcedLength: Int64 = 0
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
    var acceptsUpgrade = false

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

    /// Reads the rest of a line, holds it to its limits, and processes it without its line end; returns `false` when
    /// the bytes end first, the part read kept in `line`.
    ///
    /// A line whole in the bytes is processed where it lies; only one split between reads is gathered. Head (or
    /// trailer) bytes are counted against the limits as they are read, a CR the line ends with left out of a status
    /// line's length, since it belongs to the line end.
    ///
    /// - Throws: ``ResponseProtocolError`` when the head, a status line, a chunk-size line or the trailers pass their
    ///   limit, or what processing the line throws.
    private mutating func takeLine(
        from bytes: UnsafeRawBufferPointer,
        at offset: inout Int,
        _ report: (Event) throws -> Void
    ) throws -> Bool {
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
        // The bytes read, and the current line so far: a CR it ends with included, its LF not.
        let read = newline.map { $0 + 1 } ?? rest.count
        let lineCount: Int
        let endsWithCR: Bool
        if let newline, line.isEmpty {
            lineCount = newline
            endsWithCR = newline > 0 && rest[newline - 1] == UInt8(ascii: "\r")
        } else {
            line.append(contentsOf: rest[..<(newline ?? rest.count)])
            lineCount = line.count
            endsWithCR = line.last == UInt8(ascii: "\r")
        }
        offset += read
        headBytes += read
        switch state {
        case .statusLine, .fields:
            if case .statusLine = state, lineCount - (endsWithCR ? 1 : 0) > limits.statusLineLength {
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
            trailerBytes += read
            if trailerBytes > limits.headBytes {
                throw ResponseProtocolError(
                    message: "the trailers are larger than the limit of \(limits.headBytes) bytes"
                )
            }
        default:
            break
        }
        guard let newline else { return false }
        guard !line.isEmpty else {
            let content = UnsafeRawBufferPointer(rebasing: rest[..<newline])
            try process(line: endsWithCR ? UnsafeRawBufferPointer(rebasing: content.dropLast()) : content, report)
            return true
        }
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
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}

extension UInt8 {
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
