import Foundation
import SluiceCore

// The loopback server keeps a head's fields as the list they travelled as, names in the case they were sent in,
// values without the whitespace around them; names compare ignoring case, as `Header` does.
extension [HTTPHeaders.Field] {
    /// The comma-separated elements of every field with this name, lowercased: `Connection: Upgrade, keep-alive`
    /// gives `["upgrade", "keep-alive"]`.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The elements, in order.
    func tokens(named name: String) -> [String] {
        filter { $0.hasName(name) }
            .flatMap { FieldList.elements(of: $0.value) }
            .map { Header.asciiLowercased(String($0)) }
    }
}

extension HTTPHeaders.Field {
    /// Whether the field's name is this one, ignoring case.
    ///
    /// - Parameter otherName: The name to compare with.
    /// - Returns: `true` when the names match.
    func hasName(_ otherName: String) -> Bool {
        name == Header(otherName)
    }
}
