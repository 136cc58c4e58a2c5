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

extension ResponseParser {
    mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) throws {
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

    mutating func parseField(_ line: UnsafeRawBufferPointer) throws {
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
    static func field(
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

    mutating func finishHead(_ report: (Event) throws -> Void) throws {
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
}
