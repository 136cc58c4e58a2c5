import Foundation
import SluiceCore

/// One HTTP header field, a name and a value, as it travels on the wire.
///
/// Names keep the case they were written in; compare them case-insensitively (``LoopbackRequest/header(_:)`` does).
public struct LoopbackHeader: Sendable, Hashable, CustomStringConvertible {
    /// The field name, such as `Content-Type`, in the case it was sent.
    public let name: String

    /// The field value, without the whitespace that surrounds it on the wire.
    public let value: String

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: The field name, such as `Content-Type`.
    ///   - value: The field value, such as `application/json`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Creates a header field from an unlabelled name and value, for brevity in tests.
    ///
    /// - Parameters:
    ///   - name: The field name, such as `Content-Type`.
    ///   - value: The field value, such as `application/json`.
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }

    /// The field as it appears in a message head: `Name: value`.
    public var description: String {
        "\(name): \(value)"
    }

    /// Whether this field has the given name, ignoring ASCII case as HTTP requires.
    ///
    /// - Parameter otherName: The name to compare with.
    /// - Returns: `true` when the names are equal apart from letter case.
    func hasName(_ otherName: String) -> Bool {
        name.utf8.count == otherName.utf8.count && name.lowercased() == otherName.lowercased()
    }
}

extension [LoopbackHeader] {
    /// The values of every field with this name, read as comma-separated lists of trimmed, lowercased tokens.
    ///
    /// - Parameter name: The field name, in any case, such as `Connection`.
    /// - Returns: The tokens in order, without empty ones; `Connection: Keep-Alive, Upgrade` gives
    ///   `["keep-alive", "upgrade"]`.
    func tokens(named name: String) -> [String] {
        filter { $0.hasName(name) }
            .flatMap { FieldList.elements(of: $0.value) }
            .map { Header.asciiLowercased(String($0)) }
    }
}
