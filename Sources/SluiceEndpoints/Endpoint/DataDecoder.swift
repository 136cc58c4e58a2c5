/// A decoder of `Decodable` values from bytes: `JSONDocumentDecoder`, Foundation's `JSONDecoder` and
/// `PropertyListDecoder`, or a decoder of your own for another format.
///
/// A decoder for an API that puts `)]}'` before its JSON against cross-site script inclusion:
///
/// ```swift
/// struct GuardedJSONDecoder: DataDecoder {
///     func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
///         let prefix = Data(")]}'\n".utf8)
///         let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
///         return try JSONDocumentDecoder().decode(type, from: Data(body))
///     }
/// }
/// ```
///
/// The decoder's type chooses the pipeline's stages of an ``Endpoint`` that decodes with it, when the endpoint type
/// conforms. A decoder that reads bytes in one go, such as `JSONDecoder`, `PropertyListDecoder` or the one above,
/// keeps the defaults: its ``responseDeserializer`` is a ``DataDeserializer``, which hands the bytes on unchanged
/// (and measures next to nothing), its ``ResponseParser`` is `Data`, and the parse stage calls
/// ``decode(_:from:)``, measuring the whole decoding and reporting any of its errors, a malformed body included, as a
/// parse failure. `JSONDocumentDecoder` parses the JSON in the deserialize stage, with its own deserializer limits,
/// and decodes the document in the parse stage. To split a decoder's work between the stages some other way, name
/// the stages in the decoder, or implement the endpoint's ``Request/deserializer`` and ``Request/parse(_:)``.
public protocol DataDecoder {
    /// The parser whose representation the parse stage decodes from; `Data`, the body's bytes, by default.
    associatedtype ResponseParser: Parser = Data

    /// The deserialize stage whose output ``ResponseParser`` takes; a ``DataDeserializer`` by default.
    var responseDeserializer: any Deserializer { get }

    /// Decodes a value from bytes.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T

    /// Decodes a value in the parse stage, from the representation ``ResponseParser`` produced.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - representation: What ``ResponseParser`` made of the deserialize stage's output.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the representation.
    func decode<T: Decodable>(_ type: T.Type, parsed representation: ResponseParser.Representation) throws -> T
}

extension DataDecoder where ResponseParser == Data {
    /// A ``DataDeserializer``: the bytes go on to the parse stage unchanged.
    public var responseDeserializer: any Deserializer { DataDeserializer() }

    /// Decodes the body's bytes with ``decode(_:from:)``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The body's bytes.
    /// - Returns: The decoded value.
    /// - Throws: What ``decode(_:from:)`` throws.
    public func decode<T: Decodable>(_ type: T.Type, parsed data: Data) throws -> T {
        try decode(type, from: data)
    }
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}
