/// The checks every dialect applies to the header fields it builds, so that no value can break the message.
package enum HeaderValidation {
    /// Checks that a name is a token and that a value holds no control character but a tab.
    ///
    /// - Throws: ``EndpointBuildError`` naming the endpoint and the header.
    package static func check(name: String, value: String, endpoint: String) throws(EndpointBuildError) {
        guard Header(name).isValidToken else {
            let bad = name.unicodeScalars.first { !$0.isASCII || !HTTPToken.isCharacter(UInt8($0.value)) }
            throw EndpointBuildError(
                endpoint: endpoint,
                field: field(naming: name),
                reason: bad.map { "the name holds \(codePoint($0)), which a header name cannot" } ?? "the name is empty"
            )
        }
        try checkValue(value, of: "the value", endpoint: endpoint, field: field(naming: name))
    }

    /// Checks that a value going into a header line holds no control character but a tab.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - subject: What the value is, as the error's reason starts: `the value`.
    ///   - endpoint: The endpoint that is built.
    ///   - field: The field of the endpoint the value comes from.
    /// - Throws: ``EndpointBuildError`` naming the endpoint, the field and the character.
    package static func checkValue(
        _ value: String,
        of subject: String,
        endpoint: String,
        field: String
    ) throws(EndpointBuildError) {
        if let bad = value.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            throw EndpointBuildError(
                endpoint: endpoint,
                field: field,
                reason: "\(subject) contains the control character \(codePoint(bad)), which would break the header"
            )
        }
    }

    /// The field of an error about a header: `headers.X-Trace`, or `headers["X Bad"]` with the name quoted when it
    /// is not a token, since it may hold spaces, dots, control characters or nothing at all.
    package static func field(naming name: String) -> String {
        Header(name).isValidToken ? "headers.\(name)" : "headers[\(String(reflecting: name))]"
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    }
}
