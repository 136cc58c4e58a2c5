/// The shape of an endpoint's response, for the repository layer: one element, an array of elements, or nothing.
///
/// ``SingleResponse``, ``ArrayResponse`` and ``EmptyResponse`` cover most APIs. An API that wraps its payload in
/// an envelope declares that envelope itself, since envelopes differ from API to API:
///
/// ```swift
/// /// `{"data": [...], "next": "..."}`
/// struct PagedResponse<T: Decodable>: ResponseDefinition {
///     let result: [T]
///
///     init(json: Any) throws {
///         let document = try JSON.parse(json)
///         guard let data = document["data"] else {
///             throw DecodingError.keyNotFound(
///                 JSONKey("data"), .init(codingPath: [], debugDescription: "no \"data\" envelope")
///             )
///         }
///         result = try data.decode([T].self)
///     }
/// }
/// ```
public protocol ResponseDefinition {
    /// The type of the response's payload.
    associatedtype Result

    /// The payload.
    var result: Result { get }

    /// Creates the response from the deserialized body.
    ///
    /// - Parameter json: The body: the `JSON` document Sluice's deserializer produces, or the `[String: Any]`,
    ///   `[Any]` or scalar that Foundation's `JSONSerialization` produces.
    /// - Throws: An error saying what was expected and where.
    init(json: Any) throws
}
