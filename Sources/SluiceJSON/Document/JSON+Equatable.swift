extension JSON: Equatable {
    /// Compares two values by meaning.
    ///
    /// Numbers compare by value (`1` equals `1.0`), strings after unescaping, arrays element by element, and objects
    /// by their members regardless of order; a key that appears more than once compares the sequence of its values.
    /// The comparison keeps its own list of the pairs left to compare rather than recursing, so a document nested
    /// as deep as its parse allowed compares without running out of stack.
    ///
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: Whether the values are equal.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        var pending = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            guard left.shallowlyEquals(right, pending: &pending) else { return false }
        }
        return true
    }

    /// Compares this value with another at the top level, and adds the pairs of their elements or members that
    /// are left to compare.
    private func shallowlyEquals(_ other: JSON, pending: inout [(JSON, JSON)]) -> Bool {
        if storage === other.storage, entry == other.entry {
            return true
        }
        switch (value, other.value) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.number(let left), .number(let right)):
            return left == right
        case (.string(let left), .string(let right)):
            return left == right
        case (.array(let left), .array(let right)):
            guard left.count == right.count else { return false }
            pending.append(contentsOf: zip(left, right))
            return true
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            let leftValues = Dictionary(grouping: left, by: \.key)
            let rightValues = Dictionary(grouping: right, by: \.key)
            guard leftValues.count == rightValues.count else { return false }
            for (key, members) in leftValues {
                guard let others = rightValues[key], others.count == members.count else { return false }
                pending.append(contentsOf: zip(members, others).map { ($0.value, $1.value) })
            }
            return true
        default:
            return false
        }
    }
}
