import Foundation
import Testing

@testable import SluiceTransport

/// The request head Sluice's own transport sends, byte for byte, and the body framing it chooses.
@Suite struct RequestHeadTests {
    /// A request, as plain values, and the head it must give.
    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var url: String
        var method: String?
        /// Header fields, each name once.
        var fields: [(String, String)] = []
        var body: Data?
        /// A body given as a stream.
        var stream: Data?
        var unixSocketPath: String?
        /// The head's lines without their CRLF, the empty line at the end left out.
        var lines: [String]
        var framing: RequestHead.BodyFraming = .length(0)

        /// The request.
        func request() throws -> URLRequest {
            var request = URLRequest(url: try #require(URL(string: url)))
            request.httpMethod = method
            // Set as a whole: `setValue(_:forHTTPHeaderField:)` drops a value holding CR, LF or NUL on Linux (not on
            // Apple platforms), and the head must be safe from either.
            request.allHTTPHeaderFields = Dictionary(fields) { _, last in last }
            request.httpBody = body
            if let stream {
                request.httpBodyStream = InputStream(data: stream)
            }
            return request
        }

        /// Where the request goes.
        func origin() throws -> Origin {
            let url = try #require(URL(string: url))
            return try #require(Origin(url, unixSocketPath: unixSocketPath))
        }

        /// The head made from the request.
        func head() throws -> RequestHead {
            try RequestHead(request(), target: origin())
        }
    }

    /// A row.
    static func row(
        _ name: String,
        _ url: String,
        method: String? = nil,
        fields: [(String, String)] = [],
        body: String? = nil,
        stream: String? = nil,
        unixSocketPath: String? = nil,
        _ lines: [String],
        framing: RequestHead.BodyFraming = .length(0)
    ) -> Row {
        Row(
            testDescription: name,
            url: url,
            method: method,
            fields: fields,
            body: body.map { Data($0.utf8) },
            stream: stream.map { Data($0.utf8) },
            unixSocketPath: unixSocketPath,
            lines: lines,
            framing: framing
        )
    }

    /// The head's bytes as lines, each without its CRLF; a bare CR or LF stays inside its line.
    static func lines(of head: RequestHead) throws -> [String] {
        let text = try #require(String(bytes: head.bytes, encoding: .utf8))
        #expect(text.hasSuffix("\r\n\r\n"))
        return text.components(separatedBy: "\r\n").dropLast(2)
    }

    // MARK: - Request line and Host

    static let targetRows: [Row] = [
        row("a path", "http://example.com/a/b", ["GET /a/b HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]),
        row("an empty path", "http://example.com", ["GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]),
        row(
            "a path and a query",
            "http://example.com/search?q=swift&page=2",
            ["GET /search?q=swift&page=2 HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "a query without a path",
            "http://example.com?q=1",
            ["GET /?q=1 HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "an empty query",
            "http://example.com/p?",
            ["GET /p? HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "percent-encoding kept as in the URL",
            "http://example.com/a%20b/%2F?q=%26&r=%E2%82%AC",
            ["GET /a%20b/%2F?q=%26&r=%E2%82%AC HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "an encoded line break stays encoded",
            "http://example.com/a%0D%0AX-Injected:%201",
            ["GET /a%0D%0AX-Injected:%201 HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "no fragment",
            "http://example.com/p#section",
            ["GET /p HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "no user information",
            "http://user:secret@example.com/p",
            ["GET /p HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "a port other than 80",
            "http://example.com:8080/",
            ["GET / HTTP/1.1", "Host: example.com:8080", "User-Agent: Sluice"]
        ),
        row(
            "port 80 left out",
            "http://example.com:80/",
            ["GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "an IPv4 address",
            "http://127.0.0.1:8080/",
            ["GET / HTTP/1.1", "Host: 127.0.0.1:8080", "User-Agent: Sluice"]
        ),
        row("an IPv6 address", "http://[::1]:8080/", ["GET / HTTP/1.1", "Host: [::1]:8080", "User-Agent: Sluice"]),
        row(
            "an IPv6 address on port 80",
            "http://[2001:db8::1]/",
            ["GET / HTTP/1.1", "Host: [2001:db8::1]", "User-Agent: Sluice"]
        ),
        row(
            "a Unix domain socket",
            "http+unix://%2Fvar%2Frun%2Fapp.sock/v1/info?all=1",
            ["GET /v1/info?all=1 HTTP/1.1", "Host: localhost", "User-Agent: Sluice"]
        ),
        row(
            "every request to a Unix domain socket",
            "http://example.com:8080/v1",
            unixSocketPath: "/var/run/app.sock",
            ["GET /v1 HTTP/1.1", "Host: localhost", "User-Agent: Sluice"]
        ),
        row(
            "a Host the request sets",
            "http://127.0.0.1:8080/",
            fields: [("Host", "api.example.com")],
            ["GET / HTTP/1.1", "User-Agent: Sluice", "Host: api.example.com"]
        ),
        row(
            "a Host the request sets in lower case",
            "http://127.0.0.1:8080/",
            fields: [("host", "api.example.com")],
            ["GET / HTTP/1.1", "User-Agent: Sluice", "host: api.example.com"]
        ),
        row(
            "a User-Agent the request sets",
            "http://example.com/",
            fields: [("User-Agent", "App/1.0")],
            ["GET / HTTP/1.1", "Host: example.com", "User-Agent: App/1.0"]
        ),
    ]

    @Test(arguments: targetRows)
    func writesTheRequestLineAndHost(_ row: Row) throws {
        let head = try row.head()
        #expect(try Self.lines(of: head) == row.lines)
        #expect(head.framing == row.framing)
    }

    static let methodRows: [Row] = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "PROPFIND"].map
    {
        // Those that give content a meaning are sent a length of 0 for none.
        let length = ["GET", "HEAD", "DELETE", "OPTIONS", "TRACE"].contains($0) ? [] : ["Content-Length: 0"]
        return row(
            $0,
            "http://example.com/",
            method: $0,
            ["\($0) / HTTP/1.1", "Host: example.com", "User-Agent: Sluice"] + length
        )
    }

    @Test(arguments: methodRows)
    func writesTheMethodAsGiven(_ row: Row) throws {
        let head = try row.head()
        #expect(try Self.lines(of: head) == row.lines)
        #expect(head.method == row.method)
    }

    // MARK: - Fields and framing

    static let fieldRows: [Row] = [
        row(
            "fields sorted by name, in the case given",
            "http://example.com/",
            fields: [("x-trace", "1"), ("Accept", "application/json"), ("X-API-Key", "k"), ("accept-language", "en")],
            [
                "GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Accept: application/json", "X-API-Key: k",
                "accept-language: en", "x-trace: 1",
            ]
        ),
        row(
            "a value's inner whitespace kept",
            "http://example.com/",
            fields: [("X-Note", "a  b\tc")],
            ["GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "X-Note: a  b\tc"]
        ),
        row(
            "a body of data gets its Content-Length",
            "http://example.com/upload",
            method: "POST",
            body: "hello",
            ["POST /upload HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 5"],
            framing: .length(5)
        ),
        row(
            "an empty body of a POST gets Content-Length 0",
            "http://example.com/upload",
            method: "POST",
            body: "",
            ["POST /upload HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 0"]
        ),
        row(
            "an empty body of a GET gets none",
            "http://example.com/",
            body: "",
            ["GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "a DELETE with a body",
            "http://example.com/items/1",
            method: "DELETE",
            body: "{}",
            ["DELETE /items/1 HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 2"],
            framing: .length(2)
        ),
        row(
            "a POST without a body gets Content-Length 0, as RFC 9110 asks",
            "http://example.com/ping",
            method: "POST",
            ["POST /ping HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 0"]
        ),
        row(
            "a POST without a body keeps the Content-Length 0 it gives",
            "http://example.com/ping",
            method: "POST",
            fields: [("content-length", "0")],
            ["POST /ping HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "content-length: 0"]
        ),
        row(
            "a PUT without a body gets Content-Length 0",
            "http://example.com/items/1",
            method: "PUT",
            ["PUT /items/1 HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 0"]
        ),
        row(
            "a DELETE without a body gets none",
            "http://example.com/items/1",
            method: "DELETE",
            ["DELETE /items/1 HTTP/1.1", "Host: example.com", "User-Agent: Sluice"]
        ),
        row(
            "the request's Connection left out",
            "http://example.com/",
            fields: [("Connection", "close"), ("X-A", "1")],
            ["GET / HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "X-A: 1"]
        ),
        row(
            "a stream without a length is chunked",
            "http://example.com/upload",
            method: "POST",
            stream: "hello",
            ["POST /upload HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Transfer-Encoding: chunked"],
            framing: .chunked
        ),
        row(
            "a stream with the length the request gives",
            "http://example.com/upload",
            method: "POST",
            fields: [("Content-Length", "5")],
            stream: "hello",
            ["POST /upload HTTP/1.1", "Host: example.com", "User-Agent: Sluice", "Content-Length: 5"],
            framing: .length(5)
        ),
    ]

    @Test(arguments: fieldRows)
    func writesTheFieldsAndFraming(_ row: Row) throws {
        let head = try row.head()
        #expect(try Self.lines(of: head) == row.lines)
        #expect(head.framing == row.framing)
    }

    // MARK: - Input no caller could mean

    /// What the head refuses, as the client's validation does, for a caller that hands the transport a request
    /// directly: each row and the reason the error gives after `URLRequest.`.
    static let refusedRows: [(Row, String)] =
        [
            (
                row("CR LF in a value", "http://example.com/", fields: [("X-A", "1\r\nX-Injected: 2")], []),
                "headers.X-A: the value contains the control character U+000D, which would break the header"
            ),
            (
                row("LF in a value", "http://example.com/", fields: [("X-A", "1\nX-Injected: 2")], []),
                "headers.X-A: the value contains the control character U+000A, which would break the header"
            ),
            (
                row("CR LF in a Host the request sets", "http://example.com/", fields: [("Host", "a\r\nX: 1")], []),
                "headers.Host: the value contains the control character U+000D, which would break the header"
            ),
            (
                row("a next-line character in a value", "http://example.com/", fields: [("X-A", "1\u{85}2")], []),
                "headers.X-A: the value contains the control character U+0085, which would break the header"
            ),
            (
                row("a line separator in a value", "http://example.com/", fields: [("X-A", "1\u{2028}2")], []),
                "headers.X-A: the value contains the separator U+2028, which would break the header"
            ),
            (
                row("a NUL in a value", "http://example.com/", fields: [("X-A", "1\u{0}2")], []),
                "headers.X-A: the value contains the control character U+0000, which would break the header"
            ),
            (
                row("an escape in a value", "http://example.com/", fields: [("X-A", "\u{1B}[2J")], []),
                "headers.X-A: the value contains the control character U+001B, which would break the header"
            ),
            (
                row("a space in a name", "http://example.com/", fields: [("X A", "1")], []),
                #"headers["X A"]: the name holds U+0020, which a header name cannot"#
            ),
            (
                row(
                    "a colon in a name, which makes another field",
                    "http://example.com/",
                    fields: [("X-A:X-B", "2")],
                    []
                ),
                #"headers["X-A:X-B"]: the name holds U+003A, which a header name cannot"#
            ),
            (
                row("CR LF in a name", "http://example.com/", fields: [("X-A\r\nX-Injected", "1")], []),
                #"headers["X-A\r\nX-Injected"]: the name holds U+000D, which a header name cannot"#
            ),
            (
                row(
                    "CR LF in the method, which makes another request line",
                    "http://example.com/a",
                    method: "GET /admin HTTP/1.1\r\nX-Injected: 1\r\nX-Rest:",
                    []
                ),
                "method: the method holds U+0020, which a method cannot"
            ),
            (
                row(
                    "a space in the method, which changes the target",
                    "http://example.com/a",
                    method: "GET /admin",
                    []
                ),
                "method: the method holds U+0020, which a method cannot"
            ),
            (
                row("an empty method", "http://example.com/a", method: "", []),
                "method: the method is empty"
            ),
            (
                row(
                    "a Transfer-Encoding with a body of data",
                    "http://example.com/upload",
                    method: "PUT",
                    fields: [("Transfer-Encoding", "chunked")],
                    body: "hello",
                    []
                ),
                "headers.Transfer-Encoding: the transport frames the body and sets Transfer-Encoding itself; leave it out"
            ),
            (
                row(
                    "a Transfer-Encoding with a stream",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Transfer-Encoding", "gzip")],
                    stream: "hello",
                    []
                ),
                "headers.Transfer-Encoding: the transport frames the body and sets Transfer-Encoding itself; leave it out"
            ),
            (
                row(
                    "a Content-Length without a body",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Content-Length", "5")],
                    []
                ),
                "headers.Content-Length: the value 5 declares a body, but the request has none"
            ),
            (
                row(
                    "a Content-Length longer than the body",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Content-Length", "6")],
                    body: "hello",
                    []
                ),
                "headers.Content-Length: the value 6 does not match the body's 5 bytes"
            ),
            (
                row(
                    "a Content-Length that is not digits",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Content-Length", "+5")],
                    stream: "hello",
                    []
                ),
                #"headers.Content-Length: the value "+5" is not a length in decimal digits"#
            ),
            (
                row(
                    "a negative Content-Length",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Content-Length", "-1")],
                    stream: "hello",
                    []
                ),
                #"headers.Content-Length: the value "-1" is not a length in decimal digits"#
            ),
        ] + namedTwiceRows

    /// A field named in two cases, which a `URLRequest` holds apart on Linux only (Apple platforms merge them).
    static var namedTwiceRows: [(Row, String)] {
        #if canImport(Darwin)
        return []
        #else
        return [
            (
                row(
                    "two lengths in two cases",
                    "http://example.com/upload",
                    method: "POST",
                    fields: [("Content-Length", "5"), ("content-length", "7")],
                    stream: "hello",
                    []
                ),
                "headers.Content-Length: the field is given twice, as Content-Length and content-length, and a server could read any of them"
            ),
            (
                row("two hosts", "http://example.com/", fields: [("host", "a"), ("Host", "b"), ("X-A", "1")], []),
                "headers.Host: the field is given twice, as Host and host, and a server could read any of them"
            ),
        ]
        #endif
    }

    @Test(arguments: refusedRows)
    func refusesWhatNoCallerMeans(_ row: Row, reason: String) throws {
        let error = #expect(throws: SluiceError.self) { try row.head() }
        #expect(error?.code == .transport)
        #expect(error?.message == "cannot send the request: URLRequest.\(reason)")
        #expect(
            error?.description.hasPrefix(
                """
                error: cannot send the request: URLRequest.\(reason)
                  --> (request not built) [stage: transport]
                """
            ) == true
        )
    }
}
