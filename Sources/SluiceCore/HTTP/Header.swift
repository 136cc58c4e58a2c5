/// The name of an HTTP header field.
///
/// Header names are case-insensitive (RFC 9110, 5.1): `Header("content-type") == .contentType`. The name keeps
/// the spelling it was created with, which is the spelling sent on the wire.
///
/// Names are an open set: the standard ones are static members, and any other is written as a string literal,
/// `"X-Request-ID"`.
public struct Header: Sendable {
    /// The name as it was spelled when created.
    public let name: String

    /// The name in ASCII lower case, used for comparison and hashing.
    package let canonicalName: String

    /// Creates a header name.
    ///
    /// - Parameter name: The field name, such as `Content-Type`.
    public init(_ name: String) {
        self.name = name
        self.canonicalName = Header.asciiLowercased(name)
    }

    /// Whether the name is a valid field name token (RFC 9110, 5.1): one or more of the ASCII letters and digits, the
    /// punctuation `!#$%&'*+-.^_|~`, and the backtick.
    public var isValidToken: Bool {
        HTTPToken.isToken(name.utf8)
    }

    static func asciiLowercased(_ string: String) -> String {
        guard string.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return string
        }
        return String(
            decoding: string.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 },
            as: UTF8.self
        )
    }
}

extension Header: Hashable {
    /// Compares two names case-insensitively.
    ///
    /// - Parameters:
    ///   - lhs: A header name.
    ///   - rhs: Another header name.
    /// - Returns: Whether the names are equal ignoring ASCII case.
    public static func == (lhs: Header, rhs: Header) -> Bool {
        lhs.canonicalName == rhs.canonicalName
    }

    /// Hashes the case-insensitive form of the name.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalName)
    }
}

extension Header: ExpressibleByStringLiteral {
    /// Creates a header name from a string literal, such as `"X-Request-ID"`.
    ///
    /// - Parameter value: The field name.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension Header: CustomStringConvertible {
    /// The name as spelled when created.
    public var description: String { name }
}
