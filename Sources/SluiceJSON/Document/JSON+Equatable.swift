extension JSON: Equatable {
    /// Compares two values by meaning.
    ///
    /// Numbers compare by value (`1` equals `1.0`), strings after unescaping, arrays element by element, and objects
    /// by their members regardless of order; a key that appears more than once compares the sequence of its values.
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
            let rightValues = Dictionary(grouping: right, by: \.key)
            let leftValues = Dictionary(grouping: left, by: \.key)
            guard leftValues.count == rightValues.count else { return false }
            return leftValues.allSatisfy { key, members in
                guard let others = rightValues[key], others.count == members.count else { return false }
                return zip(members, others).allSatisfy { $0.value == $1.value }
            }
        default:
            return false
        }
    }
}
