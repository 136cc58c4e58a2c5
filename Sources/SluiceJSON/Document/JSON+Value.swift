/// A JSON value as an enumeration, to pattern-match on: what ``JSON/value`` returns.
///
/// ```swift
/// switch json.value {
/// case .string(let text): print("a string:", text)
/// case .number(let number): print("a number:", number.double)
/// case .array(let elements): print(elements.count, "elements")
/// case .object(let members): print(members.map(\.key))
/// case .bool, .null: break
/// }
/// ```
///
/// JSON has exactly these six kinds of value (RFC 8259, 3), so the enumeration is frozen.
@frozen
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, exactly as written.
    case number(JSON.Number)
    /// A string, unescaped.
    case string(String)
    /// An array's elements.
    case array(JSON.Elements)
    /// An object's members, in document order.
    case object(JSON.Members)
}

extension JSON {
    /// This value as an enumeration, to pattern-match on.
    public var value: JSONValue {
        switch storage.tag(entry) {
        case .null: .null
        case .true: .bool(true)
        case .false: .bool(false)
        case .number: .number(Number(storage: storage, entry: entry))
        case .string: .string(storage.string(at: entry))
        case .array: .array(Elements(storage: storage, entry: entry))
        case .object: .object(Members(storage: storage, entry: entry))
        }
    }
}
