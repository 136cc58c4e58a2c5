import Testing

@testable import SluiceTransport

/// The HTTP/1.1 response parser as a pure function over bytes: each row is read whole, a byte at a time, and in two
/// pieces split at each offset, and every way must give the row's result.
///
/// Whatever a row's error, the connection that carried the response is not used again: `Connection` closes it on
/// any error the parser throws.
@Suite struct ResponseParserTests {
    /// A response's bytes, how the request was made, and what reading them must give.
    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
        var isHeadRequest = false
        /// Whether the server closes the connection after the bytes.
        var closes = false
        var limits = ResponseParserTests.defaultLimits
        /// What the parser reports (see ``Reading``), or the message of the error it throws.
        var expected: String
    }

    /// The transport's default limits.
    static let defaultLimits = HeadLimits(statusLineLength: 8 << 10, headerCount: 100, headBytes: 64 << 10)

    /// A row.
    static func row(
        _ name: String,
        _ response: String,
        head: Bool = false,
        closes: Bool = false,
        limits: HeadLimits = defaultLimits,
        _ expected: String
    ) -> Row {
        Row(
            testDescription: name,
            bytes: Array(response.utf8),
            isHeadRequest: head,
            closes: closes,
            limits: limits,
            expected: expected
        )
    }

    // MARK: - Reading

    /// How the bytes reach the parser.
    enum Feeding: CustomStringConvertible {
        case whole
        case byteByByte
        case split(at: Int)

        /// Every way to feed a response of this many bytes: whole, a byte at a time, and split at each offset (at
        /// some 64 offsets of a long one).
        static func all(for count: Int) -> [Feeding] {
            let stride = max(1, count / 64)
            return [.whole, .byteByByte] + Swift.stride(from: 1, to: count, by: stride).map { .split(at: $0) }
        }

        func pieces(of count: Int) -> [Range<Int>] {
            switch self {
            case .whole: [0..<count]
            case .byteByByte: (0..<count).map { $0..<$0 + 1 }
            case .split(let offset): [0..<offset, offset..<count]
            }
        }

        var description: String {
            switch self {
            case .whole: "fed whole"
            case .byteByByte: "fed byte by byte"
            case .split(let offset): "fed in two pieces split at \(offset)"
            }
        }
    }

    /// What the parser reported, one step per event with a body's pieces joined, as text:
    /// `200 keep-alive length 5; body "hello"; end; 3 bytes left`.
    struct Reading: CustomStringConvertible {
        private enum Step {
            case head(String)
            case body([UInt8])
            case end
        }

        private var steps: [Step] = []
        /// The final head's fields as `name: value`.
        private(set) var fields: [String] = []
        /// The bytes the parser did not take.
        var left = 0

        mutating func record(_ event: ResponseParser.Event) {
            switch event {
            case .head(let head):
                let length = head.contentLength.map { " length \($0)" } ?? ""
                steps.append(.head("\(head.status) \(head.keepAlive ? "keep-alive" : "close")\(length)"))
                fields = head.fields.map { "\($0.name): \($0.value)" }
            case .body(let bytes):
                if case .body(let earlier) = steps.last {
                    steps[steps.count - 1] = .body(earlier + bytes)
                } else {
                    steps.append(.body(Array(bytes)))
                }
            case .end:
                steps.append(.end)
            }
        }

        var description: String {
            var parts = steps.map { step in
                switch step {
                case .head(let text): text
                case .body(let bytes): "body \(String(decoding: bytes, as: UTF8.self).debugDescription)"
                case .end: "end"
                }
            }
            if left > 0 {
                parts.append("\(left) bytes left")
            }
            return parts.joined(separator: "; ")
        }
    }

    /// Reads a row's bytes as a connection would: piece by piece until the response is complete, then the close when
    /// the row's server closes.
    static func read(_ row: Row, _ feeding: Feeding) throws -> Reading {
        var parser = ResponseParser(limits: row.limits, isHeadRequest: row.isHeadRequest)
        var reading = Reading()
        var taken = 0
        for piece in feeding.pieces(of: row.bytes.count) where !parser.isComplete {
            let count = try row.bytes[piece].withUnsafeBytes { bytes in
                try parser.parse(bytes) { reading.record($0) }
            }
            taken += count
            // The parser takes every byte until the response is complete.
            #expect(count == piece.count || parser.isComplete, "\(feeding)")
        }
        if row.closes {
            try parser.parseEndOfStream { reading.record($0) }
        }
        reading.left = row.bytes.count - taken
        return reading
    }

    /// Checks that every way of feeding the row gives its result.
    static func check(_ row: Row) throws {
        for feeding in Feeding.all(for: row.bytes.count) {
            let reading = try read(row, feeding)
            #expect(reading.description == row.expected, "\(feeding)")
        }
    }

    /// Checks that every way of feeding the row throws its error.
    static func checkRejected(_ row: Row) {
        for feeding in Feeding.all(for: row.bytes.count) {
            #expect(throws: ResponseProtocolError(message: row.expected), "\(feeding)") {
                try read(row, feeding)
            }
        }
    }

    // MARK: - Message body length (RFC 9112, section 6.3)

    static let ok = "HTTP/1.1 200 OK\r\n"
    static let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

    static let framingRows: [Row] = [
        // 1. HEAD responses, 1xx, 204 and 304 end at the empty line after the head, whatever it announces.
        row("HEAD response announcing a length", "\(ok)Content-Length: 5\r\n\r\n", head: true, "200 keep-alive; end"),
        row("HEAD response announcing chunked", chunked, head: true, "200 keep-alive; end"),
        row("HEAD response announcing nothing", "\(ok)\r\n", head: true, "200 keep-alive; end"),
        row(
            "HEAD response followed by other bytes",
            "\(ok)Content-Length: 5\r\n\r\nhello",
            head: true,
            "200 keep-alive; end; 5 bytes left"
        ),
        row("204 announcing a length", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", "204 keep-alive; end"),
        row("204 announcing nothing", "HTTP/1.1 204 No Content\r\n\r\n", "204 keep-alive; end"),
        row("204 followed by other bytes", "HTTP/1.1 204 No Content\r\n\r\nhello", "204 keep-alive; end; 5 bytes left"),
        row("204 with Connection: close", "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", "204 close; end"),
        row("HTTP/1.0 204", "HTTP/1.0 204 No Content\r\n\r\n", "204 close; end"),
        row("304 announcing a length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n", "304 keep-alive; end"),
        row(
            "304 announcing chunked",
            "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
            "304 keep-alive; end"
        ),
        // RFC 9112, section 6.1: such a response may name the codings the body would have had.
        row(
            "HEAD response announcing codings other than chunked",
            "\(ok)Transfer-Encoding: gzip, chunked\r\n\r\n",
            head: true,
            "200 keep-alive; end"
        ),
        row(
            "304 announcing codings other than chunked",
            "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: gzip\r\n\r\n",
            "304 keep-alive; end"
        ),
        // 3 and 4. Transfer-Encoding with chunked as the final (and only supported) coding.
        row(
            "chunked body",
            "\(chunked)5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            "200 keep-alive; body \"hello world\"; end"
        ),
        row(
            "chunked named in capitals, with whitespace around",
            "\(ok)Transfer-Encoding: \t CHUNKED \t\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        row("chunked body without chunks", "\(chunked)0\r\n\r\n", "200 keep-alive; end"),
        row(
            "chunked body followed by other bytes",
            "\(chunked)2\r\nok\r\n0\r\n\r\nHTTP/1.1",
            "200 keep-alive; body \"ok\"; end; 8 bytes left"
        ),
        row(
            "chunked body with Connection: close",
            "\(ok)Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "200 close; body \"ok\"; end"
        ),
        // 5 and 6. Content-Length, and the identical repeated values RFC 9110, section 8.6 allows.
        row(
            "Content-Length body",
            "\(ok)Content-Length: 5\r\n\r\nhello",
            "200 keep-alive length 5; body \"hello\"; end"
        ),
        row("Content-Length 0", "\(ok)Content-Length: 0\r\n\r\n", "200 keep-alive length 0; end"),
        row(
            "Content-Length body followed by other bytes",
            "\(ok)Content-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n",
            "200 keep-alive length 2; body \"ok\"; end; 17 bytes left"
        ),
        row(
            "Content-Length body holding line ends",
            "\(ok)Content-Length: 6\r\n\r\na\r\nb\n\r",
            "200 keep-alive length 6; body \"a\\r\\nb\\n\\r\"; end"
        ),
        row(
            "identical values in one field",
            "\(ok)Content-Length: 5, 5\r\n\r\nhello",
            "200 keep-alive length 5; body \"hello\"; end"
        ),
        row(
            "identical values in two fields",
            "\(ok)Content-Length: 2\r\nContent-Length: 2\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        row(
            "identical values without spaces",
            "\(ok)Content-Length: 2,2,2\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        row(
            "Content-Length with leading zeros",
            "\(ok)Content-Length: 002\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        row(
            "Content-Length in any case, with whitespace around",
            "\(ok)content-LENGTH: \t2 \t\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        // 4 and 8. Otherwise the body runs to the close, and the connection is not kept.
        row("no length: the body runs to the close", "\(ok)\r\nhello", closes: true, "200 close; body \"hello\"; end"),
        row("no length and no body", "\(ok)\r\n", closes: true, "200 close; end"),
        row("no length, not closed yet", "\(ok)\r\nhello", "200 close; body \"hello\""),
        row(
            "no length: what looks like a response is body",
            "\(ok)\r\nHTTP/1.1 200 OK\r\n\r\n",
            closes: true,
            "200 close; body \"HTTP/1.1 200 OK\\r\\n\\r\\n\"; end"
        ),
        row(
            "no length despite keep-alive",
            "\(ok)Connection: keep-alive\r\n\r\nab",
            closes: true,
            "200 close; body \"ab\"; end"
        ),
        row(
            "Transfer-Encoding without a coding: the body runs to the close",
            "\(ok)Transfer-Encoding: \r\n\r\nab",
            closes: true,
            "200 close; body \"ab\"; end"
        ),
        // RFC 9110, section 5.6.1: empty list elements are not elements.
        row(
            "chunked with empty list elements around it",
            "\(ok)Transfer-Encoding: , chunked, , \t,\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        // Persistence (RFC 9112, section 9.3).
        row(
            "HTTP/1.1 Connection: close",
            "\(ok)Connection: close\r\nContent-Length: 0\r\n\r\n",
            "200 close length 0; end"
        ),
        row(
            "Connection: close among other options, in any case",
            "\(ok)Connection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n",
            "200 close length 0; end"
        ),
        row(
            "a stray quote in Connection hides no token after it, as servers and proxies split the list",
            "\(ok)Connection: x\", close\r\nContent-Length: 0\r\n\r\n",
            "200 close length 0; end"
        ),
        row(
            "HTTP/1.0 with a length",
            "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
            "200 close length 2; body \"ok\"; end"
        ),
        row(
            "HTTP/1.0 with Connection: keep-alive",
            "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        // Tokens compare in ASCII: "\u{212A}" (a Kelvin sign) lowercases to "k" only by Unicode's rules.
        row(
            "HTTP/1.0 with a Connection token that is keep-alive only by Unicode's case rules",
            "HTTP/1.0 200 OK\r\nConnection: \u{212A}eep-alive\r\nContent-Length: 2\r\n\r\nok",
            "200 close length 2; body \"ok\"; end"
        ),
        row("HTTP/1.0 without a length", "HTTP/1.0 200 OK\r\n\r\nok", closes: true, "200 close; body \"ok\"; end"),
        // RFC 9112, section 6.1: Transfer-Encoding in HTTP/1.0 may be framing a hop did not apply; the connection
        // ends after the response.
        row(
            "HTTP/1.0 chunked with Connection: keep-alive",
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "200 close; body \"ok\"; end"
        ),
        row(
            "HTTP/1.0 HEAD response announcing chunked with Connection: keep-alive",
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
            head: true,
            "200 close; end"
        ),
    ]

    @Test(arguments: framingRows)
    func framesTheBody(_ row: Row) throws {
        try Self.check(row)
    }

    // MARK: - Interim responses

    static let interimRows: [Row] = [
        row(
            "100 Continue, then the response",
            "HTTP/1.1 100 Continue\r\n\r\n\(ok)Content-Length: 2\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        row(
            "103 Early Hints with fields, then the response",
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n\(ok)Content-Length: 0\r\n\r\n",
            "200 keep-alive length 0; end"
        ),
        row(
            "several interim responses",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 199 Odd\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
            "204 keep-alive; end"
        ),
        row(
            "an interim response announcing a length has no body",
            "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\n\(ok)Content-Length: 2\r\n\r\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
        row(
            "an interim response announcing chunked has no body",
            "HTTP/1.1 100 Continue\r\nTransfer-Encoding: chunked\r\n\r\n\(ok)Content-Length: 0\r\n\r\n",
            "200 keep-alive length 0; end"
        ),
        row(
            "an interim response's Connection: close does not end the connection",
            "HTTP/1.1 100 Continue\r\nConnection: close\r\n\r\n\(ok)Content-Length: 0\r\n\r\n",
            "200 keep-alive length 0; end"
        ),
        row(
            "100 Continue, then the response to a HEAD request",
            "HTTP/1.1 100 Continue\r\n\r\n\(ok)Content-Length: 2\r\n\r\n",
            head: true,
            "200 keep-alive; end"
        ),
        row(
            "an interim response's fields do not count toward the final head's",
            "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n\(ok)Content-Length: 0\r\n\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 1, headBytes: 1_000),
            "200 keep-alive length 0; end"
        ),
    ]

    @Test(arguments: interimRows)
    func skipsInterimResponses(_ row: Row) throws {
        try Self.check(row)
    }

    // MARK: - Chunked transfer coding (RFC 9112, section 7.1)

    static let chunkRows: [Row] = [
        row(
            "a size in lower-case hex",
            "\(chunked)a\r\n0123456789\r\n0\r\n\r\n",
            "200 keep-alive; body \"0123456789\"; end"
        ),
        row(
            "a size in upper-case hex",
            "\(chunked)A\r\n0123456789\r\n0\r\n\r\n",
            "200 keep-alive; body \"0123456789\"; end"
        ),
        row("sizes with leading zeros", "\(chunked)0002\r\nok\r\n000\r\n\r\n", "200 keep-alive; body \"ok\"; end"),
        row("one-byte chunks", "\(chunked)1\r\no\r\n1\r\nk\r\n0\r\n\r\n", "200 keep-alive; body \"ok\"; end"),
        row("a chunk extension", "\(chunked)2;name=value\r\nok\r\n0\r\n\r\n", "200 keep-alive; body \"ok\"; end"),
        row(
            "a chunk extension with a quoted value",
            "\(chunked)2;name=\"a;b\\\"c\"\r\nok\r\n0\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        row(
            "chunk extensions with whitespace",
            "\(chunked)2 ; a=1\t; b\r\nok\r\n0\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        row(
            "a last chunk with an extension",
            "\(chunked)2\r\nok\r\n0;final\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        row(
            "trailers are read and left out",
            "\(chunked)2\r\nok\r\n0\r\nX-Checksum: 1234\r\nX-Other: 5\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
        row("bare LF line ends", "\(chunked)2\nok\n0\nX-T: 1\n\n", "200 keep-alive; body \"ok\"; end"),
        row(
            "chunk data holding line ends",
            "\(chunked)6\r\nab\r\ncd\r\n0\r\n\r\n",
            "200 keep-alive; body \"ab\\r\\ncd\"; end"
        ),
        row(
            "chunk data that looks like a last chunk",
            "\(chunked)5\r\n0\r\n\r\n\r\n0\r\n\r\n",
            "200 keep-alive; body \"0\\r\\n\\r\\n\"; end"
        ),
    ]

    @Test(arguments: chunkRows)
    func readsChunks(_ row: Row) throws {
        try Self.check(row)
    }

    // MARK: - Status line (RFC 9112, section 4)

    static let statusLineRows: [Row] = [
        row("a reason", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", "404 keep-alive length 0; end"),
        row("an empty reason", "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", "200 keep-alive length 0; end"),
        row("no reason", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", "200 keep-alive length 0; end"),
        row(
            "a reason of several words",
            "HTTP/1.1 418 I'm a teapot\r\nContent-Length: 0\r\n\r\n",
            "418 keep-alive length 0; end"
        ),
        row("a reason in UTF-8", "HTTP/1.1 200 Très bien\r\nContent-Length: 0\r\n\r\n", "200 keep-alive length 0; end"),
        row("an unregistered status", "HTTP/1.1 599 Odd\r\nContent-Length: 0\r\n\r\n", "599 keep-alive length 0; end"),
        row("the highest status", "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", "999 keep-alive length 0; end"),
        row("a later minor version", "HTTP/1.9 200 OK\r\nContent-Length: 0\r\n\r\n", "200 keep-alive length 0; end"),
        row("HTTP/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", "200 close length 0; end"),
        row(
            "bare LF line ends in the head",
            "HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
            "200 keep-alive length 2; body \"ok\"; end"
        ),
    ]

    @Test(arguments: statusLineRows)
    func readsTheStatusLine(_ row: Row) throws {
        try Self.check(row)
    }

    // MARK: - Header fields (RFC 9112, section 5)

    static let fieldRows: [(Row, [String])] = [
        (
            row(
                "names keep their case, values lose the whitespace around them",
                "\(ok)x-MiXeD:  a b \t\r\nEmpty:\r\n\r\n",
                ""
            ),
            ["x-MiXeD: a b", "Empty: "]
        ),
        (
            row("repeated fields stay in order", "\(ok)Set-Cookie: a=1\r\nX: 2\r\nSet-Cookie: b=3\r\n\r\n", ""),
            ["Set-Cookie: a=1", "X: 2", "Set-Cookie: b=3"]
        ),
        (row("a tab inside a value", "\(ok)X: a\tb\r\n\r\n", ""), ["X: a\tb"]),
        (row("a value in UTF-8", "\(ok)X: café\r\n\r\n", ""), ["X: café"]),
        (row("a colon inside a value", "\(ok)Location: http://h:8080/x\r\n\r\n", ""), ["Location: http://h:8080/x"]),
        (
            row("every token character in a name", "\(ok)!#$%&'*+-.^_`|~09azAZ: v\r\n\r\n", ""),
            ["!#$%&'*+-.^_`|~09azAZ: v"]
        ),
        (row("bare LF line ends", "HTTP/1.1 200 OK\nA: 1\r\nB: 2\n\r\n", ""), ["A: 1", "B: 2"]),
        (
            row(
                "an interim response's fields are not the final head's",
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n\(ok)X: 1\r\n\r\n",
                ""
            ),
            ["X: 1"]
        ),
    ]

    @Test(arguments: fieldRows)
    func keepsTheFieldsAsSent(_ row: Row, fields: [String]) throws {
        for feeding in Feeding.all(for: row.bytes.count) {
            var row = row
            row.closes = true
            #expect(try Self.read(row, feeding).fields == fields, "\(feeding)")
        }
    }

    // MARK: - Limits

    /// Limits of a 20-byte status line, 2 fields, and a 64-byte head.
    static let small = HeadLimits(statusLineLength: 20, headerCount: 2, headBytes: 64)
    /// The limits with a status line of at most 15 bytes, the length of `HTTP/1.1 200 OK`.
    static let shortStatusLine = HeadLimits(statusLineLength: 15, headerCount: 2, headBytes: 64)

    static let limitRows: [Row] = [
        row(
            "a status line at the limit",
            "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
            limits: shortStatusLine,
            "200 keep-alive length 0; end"
        ),
        row(
            "a status line at the limit, ended by CRLF",
            "\(ok)Content-Length: 0\r\n\r\n",
            limits: shortStatusLine,
            "200 keep-alive length 0; end"
        ),
        row(
            "fields at the limit",
            "\(ok)A: 1\r\nContent-Length: 0\r\n\r\n",
            limits: small,
            "200 keep-alive length 0; end"
        ),
        // 17 + 19 + 26 + 2 bytes.
        row(
            "a head at the limit",
            "\(ok)Content-Length: 0\r\nX-Padding: 1234567890123\r\n\r\n",
            limits: small,
            "200 keep-alive length 0; end"
        ),
        row(
            "trailers at the limit, their line ends and the empty line included",
            "\(chunked)0\r\nX: \(String(repeating: "a", count: 57))\r\n\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 10, headBytes: 64),
            "200 keep-alive; end"
        ),
        row(
            "a chunk-size line at its limit of 4096 bytes",
            "\(chunked)2;\(String(repeating: "a", count: 4_093))\r\nok\r\n0\r\n\r\n",
            "200 keep-alive; body \"ok\"; end"
        ),
    ]

    @Test(arguments: limitRows)
    func readsAResponseAtTheLimits(_ row: Row) throws {
        try Self.check(row)
    }

    // MARK: - Errors

    static let framingErrors: [Row] = [
        row(
            "Content-Length and Transfer-Encoding",
            "\(ok)Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
            "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids"
        ),
        row(
            "Transfer-Encoding and Content-Length",
            "\(ok)Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nok",
            "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids"
        ),
        row(
            "Transfer-Encoding without a coding and Content-Length",
            "\(ok)Transfer-Encoding:\r\nContent-Length: 2\r\n\r\nok",
            "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids"
        ),
        row(
            "a coding other than chunked",
            "\(ok)Transfer-Encoding: gzip\r\n\r\nab",
            "unsupported Transfer-Encoding \"gzip\"; only chunked is"
        ),
        row(
            "a coding before chunked",
            "\(ok)Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "unsupported Transfer-Encoding \"gzip, chunked\"; only chunked is"
        ),
        row(
            "chunked not the final coding",
            "\(ok)Transfer-Encoding: chunked, gzip\r\n\r\nab",
            "unsupported Transfer-Encoding \"chunked, gzip\"; only chunked is"
        ),
        row(
            "a coding that is chunked only by Unicode's case rules",
            "\(ok)Transfer-Encoding: chun\u{212A}ed\r\n\r\n0\r\n\r\n",
            "unsupported Transfer-Encoding \"chun\u{212A}ed\"; only chunked is"
        ),
        row(
            "chunked twice, in two fields",
            "\(ok)Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "unsupported Transfer-Encoding \"chunked, chunked\"; only chunked is"
        ),
        row(
            "the identity coding",
            "\(ok)Transfer-Encoding: identity\r\n\r\nab",
            "unsupported Transfer-Encoding \"identity\"; only chunked is"
        ),
        row(
            "a Content-Length that is not a number",
            "\(ok)Content-Length: abc\r\n\r\n",
            "invalid Content-Length \"abc\""
        ),
        row("a negative Content-Length", "\(ok)Content-Length: -1\r\n\r\n", "invalid Content-Length \"-1\""),
        row("a Content-Length with a sign", "\(ok)Content-Length: +2\r\n\r\nok", "invalid Content-Length \"+2\""),
        row("a fractional Content-Length", "\(ok)Content-Length: 2.0\r\n\r\nok", "invalid Content-Length \"2.0\""),
        row("a Content-Length in hex", "\(ok)Content-Length: 0x2\r\n\r\nok", "invalid Content-Length \"0x2\""),
        row("an empty Content-Length", "\(ok)Content-Length:\r\n\r\n", "invalid Content-Length \"\""),
        row(
            "a Content-Length with a space inside",
            "\(ok)Content-Length: 2 2\r\n\r\nok",
            "invalid Content-Length \"2 2\""
        ),
        row(
            "a Content-Length past 64 bits",
            "\(ok)Content-Length: 9223372036854775808\r\n\r\n",
            "invalid Content-Length \"9223372036854775808\""
        ),
        row(
            "differing values in one field",
            "\(ok)Content-Length: 2, 3\r\n\r\nok",
            "the response has differing Content-Length values \"2, 3\""
        ),
        row(
            "differing values in two fields",
            "\(ok)Content-Length: 2\r\nContent-Length: 3\r\n\r\nok",
            "the response has differing Content-Length values \"2, 3\""
        ),
        row(
            "an empty value after a length",
            "\(ok)Content-Length: 2,\r\n\r\nok",
            "the response has differing Content-Length values \"2, \""
        ),
        row(
            "equal numbers written differently",
            "\(ok)Content-Length: 02, 2\r\n\r\nok",
            "the response has differing Content-Length values \"02, 2\""
        ),
        row(
            "a length, then one that is not a number",
            "\(ok)Content-Length: 2, x\r\n\r\nok",
            "the response has differing Content-Length values \"2, x\""
        ),
    ]

    @Test(arguments: framingErrors)
    func rejectsAmbiguousFraming(_ row: Row) {
        Self.checkRejected(row)
    }

    static let chunkErrors: [Row] = [
        row(
            "a size that is not hex",
            "\(chunked)2g\r\nok\r\n0\r\n\r\n",
            "invalid chunk size \"2g\": not a hexadecimal number"
        ),
        row("a size of a letter past f", "\(chunked)g\r\n", "invalid chunk size \"g\": not a hexadecimal number"),
        row("an empty chunk-size line", "\(chunked)\r\n", "invalid chunk size \"\": not a hexadecimal number"),
        row("a negative size", "\(chunked)-2\r\nok\r\n", "invalid chunk size \"-2\": not a hexadecimal number"),
        row("a size with 0x", "\(chunked)0x2\r\nok\r\n", "invalid chunk size \"0x2\": not a hexadecimal number"),
        row("a size after whitespace", "\(chunked) 2\r\nok\r\n", "invalid chunk size \" 2\": not a hexadecimal number"),
        row(
            "an extension without a size",
            "\(chunked);a=1\r\nok\r\n",
            "invalid chunk size \";a=1\": not a hexadecimal number"
        ),
        row(
            "a size past 64 bits",
            "\(chunked)10000000000000000\r\n",
            "the chunk size \"10000000000000000\" overflows a 64-bit length"
        ),
        row(
            "a size of 16 hex digits",
            "\(chunked)ffffffffffffffff\r\n",
            "the chunk size \"ffffffffffffffff\" overflows a 64-bit length"
        ),
        row(
            "chunk data longer than its size",
            "\(chunked)2\r\nokay\r\n0\r\n\r\n",
            "chunk data was not followed by a line end"
        ),
        row(
            "chunk data shorter than its size",
            "\(chunked)4\r\nok\r\n0\r\n\r\n",
            "chunk data was not followed by a line end"
        ),
        row("no line end after chunk data", "\(chunked)2\r\nok0\r\n\r\n", "chunk data was not followed by a line end"),
        row(
            "two CRs after chunk data",
            "\(chunked)2\r\nok\r\r\n0\r\n\r\n",
            "chunk data was not followed by a line end"
        ),
        row(
            "a chunk-size line past its limit",
            "\(chunked)2;\(String(repeating: "a", count: 4_094))\r\nok\r\n0\r\n\r\n",
            "a chunk-size line is longer than the limit of 4096 bytes"
        ),
        row(
            "trailers past the limit",
            "\(chunked)0\r\nX: \(String(repeating: "a", count: 58))\r\n\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 10, headBytes: 64),
            "the trailers are larger than the limit of 64 bytes"
        ),
        row(
            "an endless stream of short trailer fields",
            "\(chunked)0\r\n\(String(repeating: "X: 1\r\n", count: 20))\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 100, headBytes: 64),
            "the trailers are larger than the limit of 64 bytes"
        ),
        row(
            "more trailer fields than the limit",
            "\(chunked)0\r\n\(String(repeating: "X: 1\r\n", count: 3))\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 2, headBytes: 1_000),
            "the response has more than the limit of 2 trailer fields"
        ),
        row(
            "a trailer line without a colon",
            "\(chunked)0\r\nX 1\r\n\r\n",
            #"a trailer line has no colon: "X 1""#
        ),
        row(
            "a trailer name that is not a token",
            "\(chunked)0\r\nX Y: 1\r\n\r\n",
            #"a trailer name is not a valid token: "X Y: 1""#
        ),
        row(
            "a control character in a trailer value",
            "\(chunked)0\r\nX: 1\u{1}2\r\n\r\n",
            "the value of trailer X holds a control character"
        ),
        row(
            "a bare CR in a chunk extension",
            "\(chunked)2;a=b\rX\r\nok\r\n0\r\n\r\n",
            #"the chunk-size line "2;a=b\rX" holds a control character"#
        ),
        row(
            "a folded trailer line",
            "\(chunked)0\r\nX: 1\r\n 2\r\n\r\n",
            #"a trailer field is folded onto a continuation line (" 2"), which HTTP/1.1 forbids"#
        ),
    ]

    @Test(arguments: chunkErrors)
    func rejectsMalformedChunks(_ row: Row) {
        Self.checkRejected(row)
    }

    static let statusLineErrors: [Row] = [
        row("a status that is not a number", "HTTP/1.1 2x0 OK\r\n\r\n", "malformed status line \"HTTP/1.1 2x0 OK\""),
        row("a two-digit status", "HTTP/1.1 20 OK\r\n\r\n", "malformed status line \"HTTP/1.1 20 OK\""),
        row("a four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", "malformed status line \"HTTP/1.1 2000 OK\""),
        row("a status below 100", "HTTP/1.1 099 Odd\r\n\r\n", "malformed status line \"HTTP/1.1 099 Odd\""),
        // RFC 9112, section 2.2: a recipient takes a bare CR as invalid, or as a space; refused, so that no reader
        // downstream splits the line there.
        row(
            "a bare CR in the reason phrase",
            "HTTP/1.1 200 O\rK\r\n\r\n",
            #"the status line "HTTP/1.1 200 O\rK" holds a control character"#
        ),
        row("status 000", "HTTP/1.1 000\r\n\r\n", "malformed status line \"HTTP/1.1 000\""),
        row("no space before the reason", "HTTP/1.1 200OK\r\n\r\n", "malformed status line \"HTTP/1.1 200OK\""),
        row("two spaces before the status", "HTTP/1.1  200 OK\r\n\r\n", "malformed status line \"HTTP/1.1  200 OK\""),
        row("a tab before the status", "HTTP/1.1\t200 OK\r\n\r\n", "malformed status line \"HTTP/1.1\\t200 OK\""),
        row("the protocol in lower case", "http/1.1 200 OK\r\n\r\n", "malformed status line \"http/1.1 200 OK\""),
        row("no version", "200 OK\r\n\r\n", "malformed status line \"200 OK\""),
        row("a space before the version", " HTTP/1.1 200 OK\r\n\r\n", "malformed status line \" HTTP/1.1 200 OK\""),
        row("an empty status line", "\r\n\(ok)\r\n", "malformed status line \"\""),
        row(
            "a minor version that is not a digit",
            "HTTP/1.x 200 OK\r\n\r\n",
            "malformed status line \"HTTP/1.x 200 OK\""
        ),
        row("a two-digit minor version", "HTTP/1.10 200 OK\r\n\r\n", "malformed status line \"HTTP/1.10 200 OK\""),
        row("a NUL in the status", "HTTP/1.1 2\u{0}0 OK\r\n\r\n", "malformed status line \"HTTP/1.1 2\\00 OK\""),
        row("not HTTP", "SSH-2.0-OpenSSH_9.6\r\n", "malformed status line \"SSH-2.0-OpenSSH_9.6\""),
        row(
            "a long malformed status line is cut short in the message",
            "HTTP/1.1 2x0 \(String(repeating: "a", count: 100))\r\n\r\n",
            "malformed status line \"HTTP/1.1 2x0 \(String(repeating: "a", count: 67))…\""
        ),
        row("HTTP/2", "HTTP/2 200\r\n\r\n", "unsupported HTTP version in status line \"HTTP/2 200\""),
        row("HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", "unsupported HTTP version in status line \"HTTP/2.0 200 OK\""),
        row("HTTP/0.9", "HTTP/0.9 200 OK\r\n\r\n", "unsupported HTTP version in status line \"HTTP/0.9 200 OK\""),
        row("HTTP/3", "HTTP/3 200 OK\r\n\r\n", "unsupported HTTP version in status line \"HTTP/3 200 OK\""),
        row(
            "101 Switching Protocols",
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
            "the server switched protocols (101), which this transport does not support"
        ),
    ]

    @Test(arguments: statusLineErrors)
    func rejectsAMalformedStatusLine(_ row: Row) {
        Self.checkRejected(row)
    }

    /// Names with each character RFC 9110, section 5.6.2 leaves out of a token, as sent and as the message shows it.
    static let invalidNameRows: [Row] = [
        ("\"", "\""), ("(", "("), (")", ")"), (",", ","), ("/", "/"), (";", ";"), ("<", "<"), ("=", "="), (">", ">"),
        ("?", "?"), ("@", "@"), ("[", "["), ("\\", "\\"), ("]", "]"), ("{", "{"), ("}", "}"), (" ", " "),
        ("\t", "\\t"), ("\u{0}", "\\0"), ("\r", "\\r"), ("\u{1B}", "\\u{1B}"), ("\u{7F}", "\u{7F}"), ("Ü", "Ü"),
    ].map { sent, shown in
        row(
            "a name holding \(sent.debugDescription)",
            "\(ok)X\(sent)A: 1\r\n\r\n",
            "a header name is not a valid token: \"X\(shown)A: 1\""
        )
    }

    static let fieldErrors: [Row] = [
        row(
            "a field folded onto a continuation line",
            "\(ok)X: 1\r\n continued\r\nContent-Length: 0\r\n\r\n",
            "a header field is folded onto a continuation line (\" continued\"), which HTTP/1.1 forbids"
        ),
        row(
            "a field folded with a tab",
            "\(ok)X: 1\r\n\tcontinued\r\n\r\n",
            "a header field is folded onto a continuation line (\"\\tcontinued\"), which HTTP/1.1 forbids"
        ),
        row(
            "whitespace before the first field",
            "\(ok) X: 1\r\n\r\n",
            "a header field is folded onto a continuation line (\" X: 1\"), which HTTP/1.1 forbids"
        ),
        row(
            "a space before the colon",
            "\(ok)Content-Length : 2\r\n\r\nok",
            "a header name is not a valid token: \"Content-Length : 2\""
        ),
        row(
            "a tab before the colon",
            "\(ok)Transfer-Encoding\t: chunked\r\n\r\n",
            "a header name is not a valid token: \"Transfer-Encoding\\t: chunked\""
        ),
        row("an empty name", "\(ok): 1\r\n\r\n", "a header name is not a valid token: \": 1\""),
        row("a line without a colon", "\(ok)X 1\r\n\r\n", "a header line has no colon: \"X 1\""),
        row(
            "a long line of one character is cut short in the message",
            "\(ok)X\(String(repeating: "\u{301}", count: 1_000))\r\n\r\n",
            "a header line has no colon: \"X\(String(repeating: "\u{301}", count: 79))…\""
        ),
        row("a NUL in a value", "\(ok)X: a\u{0}b\r\n\r\n", "the value of header X holds a control character"),
        row("a bare CR in a value", "\(ok)X: a\rb\r\n\r\n", "the value of header X holds a control character"),
        row("a CR before the line's CRLF", "\(ok)X: a\r\r\n\r\n", "the value of header X holds a control character"),
        row("a DEL in a value", "\(ok)X: a\u{7F}\r\n\r\n", "the value of header X holds a control character"),
        row("an escape in a value", "\(ok)X: a\u{1B}[0m\r\n\r\n", "the value of header X holds a control character"),
        row("a form feed in a value", "\(ok)X: a\u{0C}b\r\n\r\n", "the value of header X holds a control character"),
    ]

    @Test(arguments: invalidNameRows + fieldErrors)
    func rejectsAMalformedField(_ row: Row) {
        Self.checkRejected(row)
    }

    static let limitErrors: [Row] = [
        row(
            "a status line past the limit",
            "HTTP/1.1 200 OK!\r\n\r\n",
            limits: shortStatusLine,
            "the status line is longer than the limit of 15 bytes"
        ),
        row(
            "a status line past the limit by a bare CR",
            "HTTP/1.1 200 OK\r!\r\n\r\n",
            limits: shortStatusLine,
            "the status line is longer than the limit of 15 bytes"
        ),
        row(
            "fields past the limit",
            "\(ok)A: 1\r\nB: 2\r\nC: 3\r\n\r\n",
            limits: small,
            "the response has more than the limit of 2 header fields"
        ),
        // 17 + 19 + 27 + 2 bytes.
        row(
            "a head past the limit",
            "\(ok)Content-Length: 0\r\nX-Padding: 12345678901234\r\n\r\n",
            limits: small,
            "the response head is larger than the limit of 64 bytes"
        ),
        // 25 bytes of the interim response, then 17 + 19 + 15 + 2 of the final one.
        row(
            "a head past the limit with interim responses",
            "HTTP/1.1 100 Continue\r\n\r\n\(ok)Content-Length: 0\r\nX-Padding: 12\r\n\r\n",
            limits: HeadLimits(statusLineLength: 100, headerCount: 10, headBytes: 64),
            "the response head is larger than the limit of 64 bytes"
        ),
        row(
            "a head with no end",
            "\(ok)X: \(String(repeating: "a", count: 100))",
            limits: small,
            "the response head is larger than the limit of 64 bytes"
        ),
    ]

    @Test(arguments: limitErrors)
    func rejectsAResponsePastTheLimits(_ row: Row) {
        Self.checkRejected(row)
    }

    static let endOfStreamErrors: [Row] = [
        row("nothing", "", closes: true, "the server closed the connection without sending a response"),
        row(
            "part of the status line",
            "HTTP/1.1 20",
            closes: true,
            "the server closed the connection in the middle of the response head"
        ),
        row(
            "a head without its end",
            "\(ok)Content-Length: 2\r\n",
            closes: true,
            "the server closed the connection in the middle of the response head"
        ),
        row(
            "only an interim response",
            "HTTP/1.1 100 Continue\r\n\r\n",
            closes: true,
            "the server closed the connection in the middle of the response head"
        ),
        row(
            "part of a body of known length",
            "\(ok)Content-Length: 10\r\n\r\nhello",
            closes: true,
            "the server closed the connection after 5 of 10 bytes of the body"
        ),
        row(
            "a body of the largest length",
            "\(ok)Content-Length: 9223372036854775807\r\n\r\nhello",
            closes: true,
            "the server closed the connection after 5 of 9223372036854775807 bytes of the body"
        ),
        row(
            "part of a chunk-size line",
            "\(chunked)2",
            closes: true,
            "the server closed the connection after 0 bytes of a chunked body, before its last chunk"
        ),
        row(
            "part of a chunk",
            "\(chunked)5\r\nhel",
            closes: true,
            "the server closed the connection after 3 bytes of a chunked body, before its last chunk"
        ),
        row(
            "a chunk without its line end",
            "\(chunked)5\r\nhello\r",
            closes: true,
            "the server closed the connection after 5 bytes of a chunked body, before its last chunk"
        ),
        row(
            "chunks without the last one",
            "\(chunked)5\r\nhello\r\n",
            closes: true,
            "the server closed the connection after 5 bytes of a chunked body, before its last chunk"
        ),
        row(
            "a last chunk without the empty line",
            "\(chunked)5\r\nhello\r\n0\r\nX-T: 1\r\n",
            closes: true,
            "the server closed the connection after 5 bytes of a chunked body, before its last chunk"
        ),
        row(
            "part of a chunk of 15 hex digits",
            "\(chunked)fffffffffffffff\r\nabc",
            closes: true,
            "the server closed the connection after 3 bytes of a chunked body, before its last chunk"
        ),
    ]

    @Test(arguments: endOfStreamErrors)
    func rejectsAResponseCutShort(_ row: Row) {
        Self.checkRejected(row)
    }

    /// Text from the network goes into an error message with its control characters escaped and its length bounded,
    /// with or without quotes (a certificate's names are shown without).
    @Test func showsTheNetworksTextSafely() {
        #expect(ResponseParser.printable("evil.example\r\nX-Injected: 1") == #"evil.example\r\nX-Injected: 1"#)
        #expect(ResponseParser.quoted("a\u{0}b") == #""a\0b""#)
        let long = String(repeating: "é", count: 100)
        #expect(ResponseParser.printable(long) == String(repeating: "é", count: 80) + "…")
    }
}
