/// The parse stage: turns what a ``Deserializer`` produced into a typed representation.
///
/// A ``Request`` names its parser as `ResponseParser` (`JSON` by default) and turns the parser's
/// `Representation` into its response object in ``Request/parse(_:)``.
///
/// A parser works on types, not instances: ``parse(_:)`` is static. To support a wire format of your own, pair a
/// parser with the ``Deserializer`` that produces its input:
///
/// ```swift
/// /// Lines of text, from a deserializer that produces a `String`.
/// enum Lines: Parser {
///     static func parse(_ object: Any) throws -> [Substring] {
///         guard let text = object as? String else {
///             throw DecodingError.typeMismatch(
///                 String.self,
///                 .init(codingPath: [], debugDescription: "expected text, found \(type(of: object))")
///             )
///         }
///         return text.split(separator: "\n")
///     }
/// }
/// ```
public protocol Parser<Representation> {
    /// The typed form this parser produces.
    associatedtype Representation

    /// Turns a deserialized object into the representation.
    ///
    /// - Parameter object: What the deserializer produced.
    /// - Returns: The typed representation.
    /// - Throws: An error saying what was expected and what was found.
    static func parse(_ object: Any) throws -> Representation
}
