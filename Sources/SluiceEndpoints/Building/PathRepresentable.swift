/// A value that can stand in a URL path, a query or a form: strings, integers, booleans, UUIDs, optionals,
/// string- or integer-backed enumerations, and types of your own.
///
/// The value's text is percent-encoded where it is used; ``pathValue`` returns it unencoded.
///
/// ```swift
/// enum Sort: String, PathRepresentable {
///     case newest, oldest
/// }
///
/// struct Slug: PathRepresentable {
///     let words: [String]
///     var pathValue: String { words.joined(separator: "-") }
/// }
/// ```
///
/// An optional that is `nil` is left out of a query or form, and is an error in a path.
public protocol PathRepresentable: Sendable {
    /// The value's text, not yet percent-encoded.
    var pathValue: String { get }
}

extension String: PathRepresentable {
    /// The string itself.
    public var pathValue: String { self }
}

extension Substring: PathRepresentable {
    /// The substring as a string.
    public var pathValue: String { String(self) }
}

extension Int: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension Int8: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension Int16: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension Int32: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension Int64: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension UInt: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension UInt8: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension UInt16: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension UInt32: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension UInt64: PathRepresentable {
    /// The decimal digits.
    public var pathValue: String { String(self) }
}

extension Double: PathRepresentable {
    /// The shortest text that reads back as the same value, such as `0.1` or `1e-05`.
    public var pathValue: String { description }
}

extension Bool: PathRepresentable {
    /// `true` or `false`.
    public var pathValue: String { self ? "true" : "false" }
}

extension UUID: PathRepresentable {
    /// The UUID in its standard upper-case form.
    public var pathValue: String { uuidString }
}

extension Optional: PathRepresentable where Wrapped: PathRepresentable {
    /// The wrapped value's text, or an empty string for `nil` (which queries and forms leave out).
    public var pathValue: String { self?.pathValue ?? "" }
}

extension PathRepresentable where Self: RawRepresentable, RawValue: PathRepresentable {
    /// The raw value's text, for enumerations that declare `PathRepresentable`.
    public var pathValue: String { rawValue.pathValue }
}

/// Lets the builder see through `Any` whether a value is an optional holding nothing.
protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? { self.map { $0 } }
}

/// The value inside any number of optionals, or `nil` when one of them is empty.
func unwrapOptionals(_ value: Any) -> Any? {
    var current = value
    while let optional = current as? any OptionalValue {
        guard let wrapped = optional.wrappedValue else { return nil }
        current = wrapped
    }
    return current
}

/// The text of a value read through a key path whose type the compiler could not check: the ``PathRepresentable``
/// text inside any optionals, or `nil` when an optional is empty.
///
/// - Parameters:
///   - value: The value read.
///   - endpoint: The endpoint's name, for the error.
///   - field: The field the value was read from, such as `headers.X-Trace`.
/// - Returns: The text, or `nil`.
/// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` when the value is not ``PathRepresentable``.
func pathText(of value: Any, endpoint: String, field: String) throws(InvalidFieldError) -> String? {
    guard let value = unwrapOptionals(value) else { return nil }
    guard let representable = value as? any PathRepresentable else {
        throw InvalidFieldError(
            endpoint: endpoint,
            field: field,
            reason: "a value of type \(type(of: value)) is not PathRepresentable"
        )
    }
    return representable.pathValue
}
