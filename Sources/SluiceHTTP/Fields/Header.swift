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

    /// Whether two field names are equal ignoring ASCII case, as RFC 9110 compares them, without making a string or
    /// going through Foundation's Unicode-aware comparison: names are tokens, ASCII by definition.
    ///
    /// - Parameters:
    ///   - lhs: A field name.
    ///   - rhs: Another field name.
    /// - Returns: Whether they are the same name.
    package static func namesMatch(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        // Counting a native string's UTF-8 is free, and most names differ in length.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return true
            case (let a?, let b?) where a == b || asciiLowercased(a) == asciiLowercased(b):
                continue
            default:
                return false
            }
        }
    }

    /// A byte with an ASCII capital letter made small.
    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    /// A string with its ASCII capitals lowercased and every other byte kept.
    ///
    /// This is how names and tokens compare (RFC 9110, section 5.1). Unicode's rules would also fold a Kelvin sign
    /// (`\u{212A}`) to `k`, which no server reading the bytes does.
    ///
    /// - Parameter string: The name or token.
    /// - Returns: The string in ASCII lower case.
    package static func asciiLowercased(_ string: String) -> String {
        guard string.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            return string
        }
        // Written in place: on 64-bit platforms a name of up to 15 bytes, as most are, makes no allocation at all.
        let count = string.utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            for (index, byte) in string.utf8.enumerated() {
                buffer[index] = asciiLowercased(byte)
            }
            return count
        }
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
