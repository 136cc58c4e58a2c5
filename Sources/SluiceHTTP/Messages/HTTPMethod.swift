/// An HTTP request method.
///
/// Methods are an open set, so `HTTPMethod` is a struct with static members rather than an enum: a method the
/// library does not name is written as a string literal, `"PROPFIND"`.
///
/// Both spellings used by the endpoint styles Sluice supports are available: `.get` and `.GET` are the same
/// value.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable {
    /// The method token as sent on the wire, such as `GET`.
    public let rawValue: String

    /// Creates a method from its token.
    ///
    /// The token is used exactly as given; methods are case-sensitive.
    ///
    /// - Parameter rawValue: The method token, such as `GET`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The method token, such as `GET`.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// `GET`: transfer a current representation of the target resource.
    public static let get = HTTPMethod("GET")
    /// `HEAD`: the same as `GET`, without the body.
    public static let head = HTTPMethod("HEAD")
    /// `POST`: process the enclosed representation.
    public static let post = HTTPMethod("POST")
    /// `PUT`: replace the target resource with the enclosed representation.
    public static let put = HTTPMethod("PUT")
    /// `PATCH`: apply partial modifications to the target resource.
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`: remove the target resource.
    public static let delete = HTTPMethod("DELETE")
    /// `OPTIONS`: describe the communication options for the target resource.
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE`: perform a message loop-back test.
    public static let trace = HTTPMethod("TRACE")
    /// `CONNECT`: establish a tunnel to the server.
    public static let connect = HTTPMethod("CONNECT")

    /// Whether a request with this method can be repeated without changing the outcome (RFC 9110, 9.2.2):
    /// `GET`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` and `TRACE`.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options, .trace: true
        default: false
        }
    }

    /// Whether this method puts request parameters in the URL query rather than the body by convention:
    /// `GET`, `HEAD` and `DELETE`.
    public var prefersQueryParameters: Bool {
        switch self {
        case .get, .head, .delete: true
        default: false
        }
    }
}

extension HTTPMethod: ExpressibleByStringLiteral {
    /// Creates a method from a string literal, such as `"PROPFIND"`.
    ///
    /// - Parameter value: The method token.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method token.
    public var description: String { rawValue }
}
