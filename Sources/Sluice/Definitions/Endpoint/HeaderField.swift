/// The value of a header in an endpoint's ``Definition``: a key path into the endpoint's `HeaderValues`, or a
/// fixed value.
///
/// ```swift
/// headers: [
///     "X-Trace": .field(path: \.traceID),
///     .accept: .fieldValue(value: "application/json"),
/// ]
/// ```
///
/// A value read through a key path must be ``PathRepresentable``; a `nil` optional leaves the header out. A
/// value holding a line break or another control character fails the build stage, so that no header can be
/// injected.
public enum HeaderField<T>: Sendable {
    /// A value read from the endpoint's header values.
    case field(path: any PartialKeyPath<T> & Sendable)
    /// A fixed value.
    case fieldValue(value: String)
}
