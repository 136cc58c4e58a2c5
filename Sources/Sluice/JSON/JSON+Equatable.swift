extension JSON: Equatable {
    /// Compares two values by meaning: numbers by value (`1` equals `1.0`), strings after unescaping, arrays
    /// element by element, and objects by their members regardless of order.
    ///
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: Whether the values are equal.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs.value, rhs.value) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            return left == right
        case (.string(let left), .string(let right)):
            return left == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && left.elementsEqual(right)
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            return left.allSatisfy { member in right[member.key] == member.value }
        default:
            return false
        }
    }
}
