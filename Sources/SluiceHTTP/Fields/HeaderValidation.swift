/// The checks every dialect applies to the header fields it builds, so that no value can break the message.
package enum HeaderValidation {
    /// Checks that a name is a token and that a value holds no control character but a tab.
    ///
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint and the header.
    package static func check(
        name: String,
        value: String,
        endpoint: @autoclosure () -> String
    ) throws(InvalidFieldError) {
        guard HTTPToken.isToken(name.utf8) else {
            let bad = name.unicodeScalars.first { !$0.isASCII || !HTTPToken.isCharacter(UInt8($0.value)) }
            throw InvalidFieldError(
                endpoint: endpoint(),
                field: field(naming: name),
                reason: bad.map { "the name holds \(codePoint($0)), which a header name cannot" } ?? "the name is empty"
            )
        }
        try checkValue(value, of: "the value", endpoint: endpoint(), field: field(naming: name))
    }

    /// Checks that a value going into a header line holds no control character but a tab.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - subject: What the value is, as the error's reason starts: `the value`.
    ///   - endpoint: The endpoint that is built.
    ///   - field: The field of the endpoint the value comes from.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint, the field and the character.
    package static func checkValue(
        _ value: String,
        of subject: String,
        endpoint: @autoclosure () -> String,
        field: @autoclosure () -> String
    ) throws(InvalidFieldError) {
        if let bad = value.unicodeScalars.first(where: isForbiddenInValue) {
            throw InvalidFieldError(
                endpoint: endpoint(),
                field: field(),
                reason: "\(subject) contains \(describe(bad)), which would break the header"
            )
        }
    }

    /// The field of an error about a header: `headers.X-Trace`, or `headers["X Bad"]` with the name quoted when it
    /// is not a token, since it may hold spaces, dots, control characters or nothing at all.
    package static func field(naming name: String) -> String {
        let shown = excerpt(name)
        return HTTPToken.isToken(name.utf8) && shown == name
            ? "headers.\(name)" : "headers[\(String(reflecting: shown))]"
    }

    /// A caller's text as an error quotes it: at most 64 characters, then `…`, so that an error stays one short line
    /// however long the text.
    package static func excerpt(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > 64 else { return text }
        return String(String.UnicodeScalarView(scalars.prefix(64))) + "…"
    }

    /// Whether a character may not go into a header line: a control character other than the tab (the C0 and C1
    /// sets and DEL, so CR, LF, NUL and the next-line character among them), or a Unicode line or paragraph separator.
    ///
    /// RFC 9110, section 5.5, allows visible characters, spaces, tabs and bytes above 0x7F in a field value, and calls
    /// CR, LF and NUL dangerous; the other control characters are refused with them, since no caller means them and a
    /// terminal or a log that shows the value may act on them.
    package static func isForbiddenInValue(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    /// A character ``isForbiddenInValue(_:)`` refuses, as an error names it: `the control character U+000A`.
    package static func describe(_ scalar: Unicode.Scalar) -> String {
        scalar.value >= 0x2028 ? "the separator \(codePoint(scalar))" : "the control character \(codePoint(scalar))"
    }

    /// The character as an error names it: `U+000A`.
    package static func codePoint(_ scalar: Unicode.Scalar) -> String {
        "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    }
}
