/// A value that is sent as JSON: as a JSON body, or flattened into query parameters.
///
/// Adopting it is all there is to do for an `Encodable` type; what it adds is a promise that the value is sent
/// through its `Encodable` conformance, strictly, rather than as a loose `[String: Any]`:
///
/// ```swift
/// struct EditableAccountDetails: Encodable, JSONRepresentable {
///     let name: String
///     let email: String
/// }
/// ```
///
/// `JSON` values adopt it, for parameters built in place: `.queryParameters(parameters: ["page": 2] as JSON)`.
public protocol JSONRepresentable: Encodable, Sendable {}

extension JSON: JSONRepresentable {}
