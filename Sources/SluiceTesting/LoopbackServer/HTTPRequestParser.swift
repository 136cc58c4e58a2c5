import Foundation
import SluiceCore

/// Why a request cannot be served: the server answers with `status`, then closes the connection.
struct RequestRejection: Error, Equatable {
    /// The status to answer with, such as 400 or 431.
    let status: Int
    /// A short explanation, sent as the plain-text body.
    let reason: String
}

/// The request line and header fields of a request.
struct RequestHead: Equatable {
    /// The method, such as `GET`.
    var method: String
    /// The raw request-target.
    var target: String
    /// The minor version: 0 for `HTTP/1.0`, 1 for `HTTP/1.1` (and for any later 1.x, which 1.1 can serve).
    var minorVersion: Int
    /// The header fields in order.
    var headers: [HTTPHeaders.Field] = []

    /// The version as written in responses and in ``LoopbackServer/Request/version``.
    var version: String {
        minorVersion == 0 ? "HTTP/1.0" : "HTTP/1.1"
    }

    /// The values of every header with this name, as comma-separated lists split into trimmed, lowercased tokens.
    func tokens(of name: String) -> [String] {
        headers.tokens(named: name)
    }
}

/// How the body of a request is delimited.
enum BodyFraming: Equatable {
    /// No body.
    case none
    /// A body of exactly this many bytes.
    case length(Int)
    /// A chunked body.
    case chunked
}

/// Parses the pieces of an HTTP/1.x request (RFC 9112); the I/O around it lives in ``ConnectionHandler``.
///
/// It is strict where leniency would be ambiguous (header names, request line, lengths) and lenient where it
/// costs nothing (bare LF line endings, a missing `Host`).
enum HTTPRequestParser {
    /// The most bytes the request line, the header fields and (for chunked bodies) the trailer fields may take.
    static let maximumHeadBytes = 64 * 1024

    /// The largest body the server accepts.
    static let maximumBodyBytes = 64 * 1024 * 1024

    /// Parses `METHOD SP request-target SP HTTP-version`.
    ///
    /// - Parameter line: The request line without its line ending.
    /// - Returns: The head, without header fields yet.
    /// - Throws: ``RequestRejection`` with 400 for a malformed line, or 505 for an HTTP version other than 1.x.
    static func parseRequestLine(_ line: [UInt8]) throws(RequestRejection) -> RequestHead {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw RequestRejection(status: 400, reason: "malformed request line")
        }
        let method = parts[0]
        let target = parts[1]
        let version = parts[2]
        guard HTTPToken.isToken(method) else {
            throw RequestRejection(status: 400, reason: "malformed method")
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw RequestRejection(status: 400, reason: "malformed request-target")
        }
        let digits = Array(version.dropFirst(5))
        guard version.starts(with: Array("HTTP/".utf8)), digits.count == 3, digits[1] == UInt8(ascii: "."),
            isDigit(digits[0]), isDigit(digits[2])
        else {
            throw RequestRejection(status: 400, reason: "malformed HTTP version")
        }
        guard digits[0] == UInt8(ascii: "1") else {
            throw RequestRejection(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are supported")
        }
        return RequestHead(
            method: String(decoding: method, as: UTF8.self),
            target: decodeText(target),
            minorVersion: digits[2] == UInt8(ascii: "0") ? 0 : 1
        )
    }

    /// Parses `field-name ":" OWS field-value OWS`.
    ///
    /// - Parameter line: The header line without its line ending.
    /// - Returns: The header field.
    /// - Throws: ``RequestRejection`` with 400 for a malformed line, including obsolete line folding.
    static func parseHeaderLine(_ line: [UInt8]) throws(RequestRejection) -> HTTPHeaders.Field {
        if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            throw RequestRejection(status: 400, reason: "obsolete header line folding is not accepted")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            throw RequestRejection(status: 400, reason: "header line without a colon")
        }
        let name = line[..<colon]
        guard HTTPToken.isToken(name) else {
            throw RequestRejection(status: 400, reason: "malformed header name")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, isOptionalWhitespace(first) {
            value.removeFirst()
        }
        while let last = value.last, isOptionalWhitespace(last) {
            value.removeLast()
        }
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == UInt8(ascii: "\t") }) else {
            throw RequestRejection(status: 400, reason: "control character in header value")
        }
        return HTTPHeaders.Field(Header(String(decoding: name, as: UTF8.self)), decodeText(value))
    }

    /// Works out how the body is delimited, from `Transfer-Encoding` and `Content-Length`.
    ///
    /// A request with both `Content-Length` and `Transfer-Encoding` is refused, as gunicorn and nginx refuse it:
    /// RFC 9112 §6.3 calls such a message a possible request smuggling attempt, and a server that guessed which header
    /// wins could read the rest of the stream out of step with a proxy in front of it.
    ///
    /// - Parameter head: The parsed head.
    /// - Returns: The framing.
    /// - Throws: ``RequestRejection`` with 400 for contradictory or malformed framing, 413 for a body that is too
    ///   large, or 501 for a transfer coding other than chunked.
    static func bodyFraming(of head: RequestHead) throws(RequestRejection) -> BodyFraming {
        let hasContentLength = head.headers.contains { $0.hasName("Content-Length") }
        let codings = head.tokens(of: "Transfer-Encoding")
        if head.headers.contains(where: { $0.hasName("Transfer-Encoding") }) {
            guard !hasContentLength else {
                throw RequestRejection(
                    status: 400,
                    reason: "both Content-Length and Transfer-Encoding: the body length is ambiguous"
                )
            }
            guard head.minorVersion > 0 else {
                throw RequestRejection(status: 400, reason: "Transfer-Encoding is not allowed in HTTP/1.0")
            }
            guard let last = codings.last, last == "chunked", codings.filter({ $0 == "chunked" }).count == 1 else {
                throw RequestRejection(status: 400, reason: "chunked must be the final transfer coding, once")
            }
            guard codings.count == 1 else {
                throw RequestRejection(status: 501, reason: "only the chunked transfer coding is supported")
            }
            return .chunked
        }
        guard hasContentLength else {
            return .none
        }
        let lengths = Set(head.tokens(of: "Content-Length"))
        guard lengths.count == 1, let text = lengths.first, text.allSatisfy(\.isASCIIDigitCharacter) else {
            throw RequestRejection(status: 400, reason: "malformed or conflicting Content-Length")
        }
        guard text.count <= 18, let length = Int(text), length <= maximumBodyBytes else {
            throw RequestRejection(status: 413, reason: "request body larger than \(maximumBodyBytes) bytes")
        }
        return length == 0 ? .none : .length(length)
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    ///
    /// - Parameter head: The parsed head.
    /// - Returns: `true` for an HTTP/1.1 request with `Expect: 100-continue`.
    /// - Throws: ``RequestRejection`` with 417 for any other expectation.
    static func expectsContinue(_ head: RequestHead) throws(RequestRejection) -> Bool {
        let expectations = head.tokens(of: "Expect")
        guard !expectations.isEmpty, head.minorVersion > 0 else {
            return false
        }
        guard expectations == ["100-continue"] else {
            throw RequestRejection(status: 417, reason: "only Expect: 100-continue is supported")
        }
        return true
    }

    /// Whether the client allows the connection to stay open after the response.
    ///
    /// - Parameter head: The parsed head.
    /// - Returns: `false` for `Connection: close`, and for HTTP/1.0 unless it asked for `Connection: keep-alive`.
    static func keepsAlive(_ head: RequestHead) -> Bool {
        let options = head.tokens(of: "Connection")
        if options.contains("close") {
            return false
        }
        return head.minorVersion > 0 || options.contains("keep-alive")
    }

    /// Parses a chunk-size line, `1*HEXDIG [ chunk-ext ]`; extensions are ignored.
    ///
    /// - Parameter line: The line without its line ending.
    /// - Returns: The chunk size.
    /// - Throws: ``RequestRejection`` with 400 for a malformed line, or 413 for an absurdly large size.
    static func parseChunkSize(_ line: [UInt8]) throws(RequestRejection) -> Int {
        var digits = line.prefix { $0 != UInt8(ascii: ";") }[...]
        while let last = digits.last, isOptionalWhitespace(last) {
            digits.removeLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(isHexDigit) else {
            throw RequestRejection(status: 400, reason: "malformed chunk size")
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw RequestRejection(status: 413, reason: "chunk larger than \(maximumBodyBytes) bytes")
        }
        return size
    }

    /// Decodes header or target bytes: UTF-8 when valid, otherwise ISO 8859-1 (the historical header charset).
    private static func decodeText(_ bytes: ArraySlice<UInt8>) -> String {
        String(bytes: bytes, encoding: .utf8) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// Whether `byte` is an ASCII decimal digit.
    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether `byte` is an ASCII hexadecimal digit.
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// Whether `byte` is optional whitespace (`OWS`): a space or a horizontal tab.
    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0 to 9 (and not any other Unicode digit).
    var isASCIIDigitCharacter: Bool {
        isASCII && isWholeNumber
    }
}
