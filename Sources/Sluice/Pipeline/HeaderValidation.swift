/// The checks every dialect applies to the header fields it builds, so that no value can break the message.
enum HeaderValidation {
    /// Checks that a name is a token and that a value holds no control character but a tab.
    ///
    /// - Throws: ``EndpointBuildError`` naming the endpoint and the header.
    static func check(name: String, value: String, endpoint: String) throws(EndpointBuildError) {
        guard Header(name).isValidToken else {
            throw EndpointBuildError(
                endpoint: endpoint,
                field: "headers",
                reason: "\"\(name)\" is not a valid header name"
            )
        }
        if let bad = value.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            let code = String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw EndpointBuildError(
                endpoint: endpoint,
                field: "headers.\(name)",
                reason: "the value contains the control character U+\(code), which would break the header"
            )
        }
    }
}
