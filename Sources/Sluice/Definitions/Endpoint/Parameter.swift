/// A form or query parameter of an ``Endpoint``: a name and either a key path into the endpoint's `Parameters`
/// or a fixed value.
///
/// ```swift
/// parameters: [
///     .query("q", path: \.text),          // from the endpoint's parameters
///     .queryValue("per_page", value: 50),  // always sent
///     .form("token", path: \.token),       // in an application/x-www-form-urlencoded body
/// ]
/// ```
///
/// A value must be ``PathRepresentable`` or an array of such values (encoded by the definition's
/// ``QueryEncoding``). A `nil` optional is left out, whether read by key path or given as a fixed value:
/// `.queryValue("since", value: Int?.none)` sends no `since` at all.
public enum Parameter<T>: Sendable {
    /// A form parameter read from the endpoint's parameters.
    case form(String, path: any PartialKeyPath<T> & Sendable)
    /// A form parameter with a fixed value.
    case formValue(String, value: any PathRepresentable)
    /// A query parameter read from the endpoint's parameters.
    case query(String, path: any PartialKeyPath<T> & Sendable)
    /// A query parameter with a fixed value.
    case queryValue(String, value: any PathRepresentable)
}
