/// The value of a header in an endpoint's ``Definition``: a key path into the endpoint's `HeaderValues`, or a
/// fixed value.
///
/// ```swift
/// headers: [
///     "X-Trace": .field(\.traceID),
///     .accept: .fieldValue(value: "application/json"),
/// ]
/// ```
///
/// Write key paths with the typed spelling, `field(_:)`: the compiler checks that the value is
/// ``PathRepresentable``, so a property of another type is a compile error. The case `field(path:)` takes any key
/// path, as earlier definitions wrote it, and checks the value when the request is built: a value of another type
/// fails the build stage with a ``SluiceError`` whose ``SluiceError/invalidField`` names the header.
///
/// A `nil` optional leaves the header out. A value holding a line break or another control character fails the
/// build stage, so that no header can be injected.
public enum HeaderField<T>: Sendable {
    /// A value read from the endpoint's header values, checked when the request is built.
    case field(path: any PartialKeyPath<T> & Sendable)
    /// A fixed value.
    case fieldValue(value: String)
}

extension HeaderField {
    /// A value read from the endpoint's header values, whose type the compiler checks.
    ///
    /// - Parameter path: The key path of a ``PathRepresentable`` value; a `nil` optional leaves the header out.
    /// - Returns: The header field.
    public static func field<V: PathRepresentable>(_ path: any KeyPath<T, V> & Sendable) -> HeaderField {
        .field(path: path)
    }
}
