/// A deployment of a service: production, staging, a local server, a mock.
///
/// Environments are an open set: the common ones are static members, and any other is written as a string
/// literal, `"preview"`. A ``Server`` maps environments to base URLs, which the app configures at run time.
public struct Environment: RawRepresentable, Hashable, Sendable {
    /// The environment's name.
    public let rawValue: String

    /// Creates an environment from its name.
    ///
    /// - Parameter rawValue: The name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The live service.
    public static let production = Environment(rawValue: "production")
    /// A pre-release deployment.
    public static let staging = Environment(rawValue: "staging")
    /// A server on the developer's machine.
    public static let local = Environment(rawValue: "local")
    /// No server: responses come from fixtures.
    public static let mock = Environment(rawValue: "mock")
}

extension Environment: ExpressibleByStringLiteral {
    /// Creates an environment from a string literal.
    ///
    /// - Parameter value: The name.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }
}

extension Environment: CustomStringConvertible {
    /// The environment's name.
    public var description: String { rawValue }
}
