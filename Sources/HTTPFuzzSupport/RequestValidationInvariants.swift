package import Foundation
import SluiceCore

#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

/// What must hold for every request the client checks before sending (`URLRequest.validateForSending(as:)`):
/// it refuses exactly the requests that break a rule of RFC 9110 a plain reading of the grammar finds, naming the
/// field in a one-line error; and a request it accepts is written by Sluice's transport as one request head, with
/// the method, the target and every field as given, and no line break anywhere but at the ends of its lines.
///
/// Validation reads a whole request, never bytes as they arrive, so the cuts of the input play no part here.
package enum RequestValidationInvariants {
    /// The byte that separates the input's fields.
    static let separator: UInt8 = 0xFF

    /// Builds a request from an input and checks it.
    ///
    /// The payload is fields separated by 0xFF: the method, the path and query, then a name and a value for each
    /// header field; with flag 0, a last field is the body, sent as data (with flag 1 as a stream instead).
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) -> String? {
        var fields = input.payload.split(separator: separator, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard fields.count >= 2 else { return nil }
        let method = fields.removeFirst()
        let target = fields.removeFirst()
        var body: Data?
        if input.flag(0), !fields.isEmpty {
            body = Data(fields.removeLast().utf8)
        }
        guard let url = URL(string: "http://example.com/" + target) else { return nil }
        var headers: [String: String] = [:]
        while fields.count >= 2, headers.count < 16 {
            headers[fields[0]] = fields[1]
            fields.removeFirst(2)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        // Set as a whole: `setValue(_:forHTTPHeaderField:)` drops some values on Linux, and every value must reach
        // the check as given.
        request.allHTTPHeaderFields = headers
        if let body {
            if input.flag(1) {
                request.httpBodyStream = InputStream(data: body)
            } else {
                request.httpBody = body
            }
        }
        return violation(in: request, body: body)
    }

    /// Checks one request against the rules and the head the transport writes for it.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - body: Its body's bytes, whether sent as data or as a stream.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in request: URLRequest, body: Data?) -> String? {
        let broken = brokenRule(of: request, body: body)
        do {
            try request.validateForSending(as: "Fuzz")
        } catch {
            let text = error.description
            guard broken != nil else { return "refused a request that breaks no rule: \(text)" }
            guard text.hasPrefix("Fuzz."), !text.contains("\n"), !text.contains("\r"), text.utf8.count < 1_024 else {
                return "an error that does not name its field on one short line: \(text.debugDescription)"
            }
            return nil
        }
        if let broken {
            return "accepted a request that breaks a rule: \(broken)"
        }
        guard let url = request.url, let origin = Origin(url, unixSocketPath: nil) else { return nil }
        let head: RequestHead
        do {
            head = try RequestHead(request, target: origin)
        } catch {
            return "the transport refused a request the check accepted: \(error.message)"
        }
        return headViolation(head.bytes, of: request) ?? http2Violation(head, of: request)
    }

    /// What the fields of a request that HTTP/2 sends must be (RFC 9113 section 8.3): the four pseudo-fields first,
    /// from the request (`:authority` its `Host` when it sets one), no other; every name lowercase; none that names a connection, nor `Host`, nor `TE` but for
    /// `trailers`; every other field of the request, with its value as given.
    ///
    /// - Parameters:
    ///   - head: The transport's head of the request.
    ///   - request: The request.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    static func http2Violation(_ head: RequestHead, of request: URLRequest) -> String? {
        let list = head.http2Fields(scheme: "http")
        let pseudo = list.prefix(4).map { "\($0.name)=\($0.value)" }
        // The request's own Host, when it sets one, else the URL's.
        let host = request.allHTTPHeaderFields?.first { $0.key.lowercased() == "host" }?.value ?? "example.com"
        let expected = [":method=\(request.httpMethod ?? "GET")", ":scheme=http", ":authority=\(host)"]
        guard pseudo.count == 4, Array(pseudo.prefix(3)) == expected, pseudo[3].hasPrefix(":path=/") else {
            return "the HTTP/2 pseudo-fields are not the request's: \(pseudo)"
        }
        let fields = list.dropFirst(4)
        let dropped: Set<String> = [
            "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade",
        ]
        for field in fields {
            if field.name.hasPrefix(":") || field.name != field.name.lowercased() || dropped.contains(field.name) {
                return "an HTTP/2 field that must not be sent: \(field.name.debugDescription)"
            }
            if field.name == "te", field.value.trimmingCharacters(in: .whitespaces).lowercased() != "trailers" {
                return "an HTTP/2 TE that is not trailers: \(field.value.debugDescription)"
            }
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let lowered = name.lowercased()
            let keeps =
                !dropped.contains(lowered) && lowered != "content-length"
                && (lowered != "te" || value.trimmingCharacters(in: .whitespaces).lowercased() == "trailers")
            guard !keeps || fields.contains(where: { $0.name == lowered && $0.value == value }) else {
                return "the field \(name) with \(value.debugDescription) is not sent over HTTP/2 as given"
            }
        }
        return nil
    }

    /// The first rule a request breaks, by a plain reading of the grammar, or `nil`.
    static func brokenRule(of request: URLRequest, body: Data?) -> String? {
        let method = request.httpMethod ?? "GET"
        if !isToken(method) {
            return "the method \(method.debugDescription) is not a token"
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if !isToken(name) {
                return "the field name \(name.debugDescription) is not a token"
            }
            if value.unicodeScalars.contains(where: { isControl($0) }) {
                return "the value of \(name) holds a control character"
            }
            switch name.lowercased() {
            case "transfer-encoding":
                return "the request sets Transfer-Encoding"
            case "content-length":
                let digits = !value.isEmpty && value.allSatisfy { $0 >= "0" && $0 <= "9" }
                guard digits, let length = Int(value) else { return "the Content-Length \(value) is not digits" }
                if request.httpBodyStream == nil, length != (body?.count ?? 0) {
                    return "the Content-Length \(length) is not the body's \(body?.count ?? 0) bytes"
                }
            default:
                break
            }
        }
        let names = (request.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() }
        if Set(names).count < names.count {
            return "a field is named twice, in different cases"
        }
        return nil
    }

    /// Whether the head is one request with the request's method, the URL's target and every field as given.
    static func headViolation(_ bytes: Data, of request: URLRequest) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let end = Array("\r\n\r\n".utf8)
        guard bytes.count >= end.count, Array(bytes.suffix(end.count)) == end else {
            return "a head that does not end with an empty line: \(text.debugDescription)"
        }
        // Split on CR LF as bytes: in a `String`, CR LF is one character, and a bare CR or LF hides inside it.
        var lines: [[UInt8]] = [[]]
        var bytes = Array(bytes.dropLast(end.count))
        while !bytes.isEmpty {
            if bytes.starts(with: [13, 10]) {
                lines.append([])
                bytes.removeFirst(2)
            } else {
                lines[lines.count - 1].append(bytes.removeFirst())
            }
        }
        if lines.contains(where: { $0.isEmpty || $0.contains(13) || $0.contains(10) }) {
            return "an empty line, or a line break inside a line, in the head: \(text.debugDescription)"
        }
        let requestLine = lines[0].split(separator: 32, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard requestLine.count == 3, requestLine[0] == request.httpMethod ?? "GET", requestLine[2] == "HTTP/1.1" else {
            return "a request line that is not the method, the target and the version: \(text.debugDescription)"
        }
        let written = lines.dropFirst().map { line -> (String, String) in
            let colon = line.firstIndex(of: 58) ?? line.endIndex
            return (
                String(decoding: line[..<colon], as: UTF8.self),
                String(decoding: line[colon...].dropFirst(2), as: UTF8.self)
            )
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:]
        where !["connection", "content-length"].contains(name.lowercased()) {
            guard written.contains(where: { $0.0 == name && $0.1 == value }) else {
                return
                    "the field \(name) with \(value.debugDescription) is not written as given: \(text.debugDescription)"
            }
        }
        return nil
    }

    /// Whether text is a token of RFC 9110, by the grammar's own list of characters.
    static func isToken(_ text: String) -> Bool {
        let punctuation = Set("!#$%&'*+-.^_`|~")
        return !text.isEmpty
            && text.allSatisfy { character in
                character.isASCII && (character.isLetter || character.isNumber || punctuation.contains(character))
            }
    }

    /// Whether a character may not appear in a field value: a control character but the tab, DEL, or a Unicode line
    /// or paragraph separator.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
            || scalar.value == 0x2029
    }
}
