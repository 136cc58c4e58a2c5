import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Checks that the request can go on the wire as its caller meant it, whatever transport sends it.
    ///
    /// The client runs this on every request it builds, before any performer sees it, and Sluice's own transport runs
    /// it again on what it is handed, since a performer can be called directly. The rules, from RFC 9110 and 9112:
    ///
    /// - the request has a URL; its host, path and query hold no space and no control character (a `URL` keeps
    ///   them percent-encoded, so only a URL built around that check can hold one);
    /// - the method is a token (RFC 9110, section 9.1): no space, CR or LF that would rewrite the request line;
    /// - each header name is a token, and each value holds no control character but a tab (CR, LF and NUL among
    ///   them) and no Unicode line separator: nothing the caller sets can start another field or request;
    /// - each field is named once, whatever the case: on Linux a `URLRequest` can hold `Content-Length` and
    ///   `content-length` both, and a server could read either (Apple platforms merge them);
    /// - `Transfer-Encoding` is the transport's to set, from the body it is given: a request that sets it fails;
    /// - a `Content-Length` the request sets is decimal digits, and equals the body's size when the body is data, or
    ///   is `0` when there is no body; a stream's length is checked by the transport as it sends.
    ///
    /// - Parameter name: What built the request, as the error names it: the request type, or `URLRequest`.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the field and the character or value that broke a rule.
    package func validateForSending(as name: @autoclosure () -> String) throws(InvalidFieldError) {
        guard let url else {
            throw InvalidFieldError(endpoint: name(), field: "url", reason: "the request has no URL")
        }
        // The whole URL first, which a `URL` holds as it is: the parts are read only to name the one at fault.
        if url.absoluteString.unicodeScalars.contains(where: Self.isRefusedInURL) {
            try Self.checkURLPart(url.host(percentEncoded: true), "host", of: name())
            try Self.checkURLPart(url.path(percentEncoded: true), "path", of: name())
            try Self.checkURLPart(url.query(percentEncoded: true), "query", of: name())
        }
        if let method = httpMethod, !HTTPToken.isToken(method.utf8) {
            let bad = method.unicodeScalars.first { !$0.isASCII || !HTTPToken.isCharacter(UInt8($0.value)) }
            throw InvalidFieldError(
                endpoint: name(),
                field: "method",
                reason: bad.map { "the method holds \(HeaderValidation.codePoint($0)), which a method cannot" }
                    ?? "the method is empty"
            )
        }
        guard let fields = allHTTPHeaderFields else { return }
        for (field, value) in fields {
            try HeaderValidation.check(name: field, value: value, endpoint: name())
            if Self.isNamed(field, "transfer-encoding") {
                throw InvalidFieldError(
                    endpoint: name(),
                    field: HeaderValidation.field(naming: field),
                    reason: "the transport frames the body and sets Transfer-Encoding itself; leave it out"
                )
            }
            if Self.isNamed(field, "content-length") {
                try checkContentLength(value, field: field, of: name())
            }
        }
        if fields.count > 1 {
            try Self.checkNamedOnce(fields.keys, of: name())
        }
    }

    /// Checks the request as a client checks every request it builds, before any performer sees it, with the rules
    /// above: what builds `URLRequest`s outside a client (a bridge from another library's request type, say) refuses
    /// what a client refuses, with the same error.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/items")!)
    /// request.setValue("a\r\nb", forHTTPHeaderField: "X-Trace")
    /// try request.validate()  // URLRequest.headers.X-Trace: the value contains the control character U+000D, …
    /// ```
    ///
    /// - Parameter name: What built the request, as the error names it: `URLRequest` by default; made only for an
    ///   error, so that a request that passes costs no string.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/build`` and the field in ``SluiceError/invalidField``.
    public func validate(as name: @autoclosure () -> String = "URLRequest") throws(SluiceError) {
        do {
            try validateForSending(as: name())
        } catch {
            throw SluiceError(invalidField: error.details)
        }
    }

    /// Checks that no two field names are the same name in different cases.
    ///
    /// A request has few fields: they are compared pairwise, with no lowercased copies, since every request is asked.
    ///
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming every spelling, the same whatever the dictionary's order.
    private static func checkNamedOnce(
        _ names: Dictionary<String, String>.Keys,
        of name: String
    ) throws(InvalidFieldError) {
        let repeated = names.filter { field in names.contains { $0 != field && Header.namesMatch($0, field) } }
        guard let first = repeated.min() else { return }
        let spellings = repeated.filter { Header.namesMatch($0, first) }.sorted()
        let times = spellings.count == 2 ? "twice" : "\(spellings.count) times"
        let spelled = spellings.dropLast().joined(separator: ", ") + " and " + spellings[spellings.count - 1]
        throw InvalidFieldError(
            endpoint: name,
            field: HeaderValidation.field(naming: first),
            reason: "the field is given \(times), as \(spelled), and a server could read any of them"
        )
    }

    /// Whether a field name, a token, is `lowercased` in any case; without making a lowercased copy, since every
    /// request's every field is asked.
    private static func isNamed(_ field: String, _ lowercased: StaticString) -> Bool {
        let name = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
        guard field.utf8.count == name.count else { return false }
        // Setting bit 5 lowercases an ASCII letter and leaves the other characters of a token name unchanged, or
        // changes them to a character `lowercased` does not hold.
        return zip(field.utf8, name).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The same checks as a performer makes them on the request it is handed, which may not have come from a client.
    ///
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/transport`` and the field in ``SluiceError/invalidField``:
    ///   nothing was sent.
    package func validateForTransport() throws(SluiceError) {
        do {
            try validateForSending(as: "URLRequest")
        } catch {
            throw SluiceError(.transport, message: "cannot send the request: \(error)", underlyingError: error)
        }
    }

    /// Checks a `Content-Length` the request sets against its body.
    private func checkContentLength(_ value: String, field: String, of name: String) throws(InvalidFieldError) {
        let digits = !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let length = digits ? Int64(value) : nil
        let reason: String
        if length == nil {
            reason =
                "the value \(String(reflecting: HeaderValidation.excerpt(value))) is not a length in decimal digits"
        } else if let httpBody, Int64(httpBody.count) != length {
            reason = "the value \(value) does not match the body's \(httpBody.count) bytes"
        } else if httpBody == nil, httpBodyStream == nil, length != 0 {
            reason = "the value \(value) declares a body, but the request has none"
        } else {
            return
        }
        throw InvalidFieldError(endpoint: name, field: HeaderValidation.field(naming: field), reason: reason)
    }

    /// Whether a character may not appear unencoded in a URL sent: a space, a tab, or a character no header holds.
    private static func isRefusedInURL(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || HeaderValidation.isForbiddenInValue(scalar)
    }

    /// Checks that a part of the URL holds no space and no control character.
    ///
    /// A `URL` keeps them percent-encoded, so this holds for a URL that Foundation did not make.
    package static func checkURLPart(_ part: String?, _ field: String, of name: String) throws(InvalidFieldError) {
        guard let part, let bad = part.unicodeScalars.first(where: isRefusedInURL) else { return }
        let character = bad == "\t" ? "the control character U+0009" : HeaderValidation.describe(bad)
        throw InvalidFieldError(
            endpoint: name,
            field: "url.\(field)",
            reason: bad == " "
                ? "the \(field) holds a raw space, which would end the request target"
                : "the \(field) holds \(character), which would break the request line"
        )
    }
}
