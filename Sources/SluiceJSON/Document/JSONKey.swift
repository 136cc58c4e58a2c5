/// A coding key from a string, for errors thrown by decoding code of your own, such as a response definition
/// that reads an envelope.
public struct JSONKey: CodingKey, Sendable, Hashable {
    /// The key.
    public let stringValue: String

    /// Always `nil`: the key is a name.
    public var intValue: Int? { nil }

    /// Creates a key.
    ///
    /// - Parameter stringValue: The key.
    public init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    /// Creates a key.
    ///
    /// - Parameter stringValue: The key.
    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    /// Returns `nil`: the key is a name.
    ///
    /// - Parameter intValue: Unused.
    public init?(intValue: Int) {
        nil
    }
}
