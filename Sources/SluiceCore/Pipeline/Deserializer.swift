/// The deserialize stage: turns the bytes of a response body into an object for the ``Parser``.
///
/// The client's deserializer (`JSONDeserializer` by default) is used for every request that does not name its
/// own in ``Request/deserializer``.
///
/// A deserializer for plain text, paired with a parser that expects a `String`:
///
/// ```swift
/// struct TextDeserializer: Deserializer {
///     func deserialize(_ data: Data) throws -> Any {
///         guard let text = String(data: data, encoding: .utf8) else {
///             throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the body is not UTF-8"))
///         }
///         return text
///     }
/// }
/// ```
public protocol Deserializer: Sendable {
    /// Turns a body into an object.
    ///
    /// - Parameter data: The response body; empty when the response has none.
    /// - Returns: The deserialized object, handed to the request's parser.
    /// - Throws: An error that says what is wrong with the body and where.
    func deserialize(_ data: Data) throws -> Any
}
