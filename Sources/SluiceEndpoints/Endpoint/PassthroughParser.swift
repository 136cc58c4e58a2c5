/// A parser that hands on what the deserializer produced, unchanged, for requests whose ``Request/parse(_:)`` reads
/// the deserialized object itself.
///
/// An ``Endpoint`` uses it: the endpoint's ``Request/deserializer`` runs in the deserialize stage, handing on the
/// body's bytes (or, for `JSONDocumentDecoder`, a parsed document), and its ``Request/parse(_:)`` decodes them with
/// the response decoder in the parse stage.
///
/// ```swift
/// struct Lines: Request {
///     typealias ResponseParser = PassthroughParser
///     var deserializer: (any Deserializer)? { TextDeserializer() }
///
///     func build() throws -> URLRequest { URLRequest(url: URL(string: "https://example.com/log")!) }
///
///     func parse(_ object: Any) throws -> [Substring] {
///         (object as? String)?.split(separator: "\n") ?? []
///     }
/// }
/// ```
public enum PassthroughParser: Parser, Sendable {
    /// Returns the object.
    ///
    /// - Parameter object: What the deserializer produced.
    /// - Returns: The same object.
    public static func parse(_ object: Any) -> Any { object }
}
