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
/// A decoder works in the pipeline's stages: the client runs ``bodyDeserializer`` in the deserialize stage and
/// ``decode(_:fromDeserialized:)`` in the parse stage, so that timings and errors name the stage that did the work.
/// `JSONDocumentDecoder` parses the JSON in the deserialize stage, with its own deserializer's limits, and decodes
/// from the document in the parse stage. A decoder that reads bytes in one go, such as `JSONDecoder`,
/// `PropertyListDecoder` or the one above, keeps the defaults: its deserialize stage hands the bytes on unchanged
/// (and measures next to nothing), and its parse stage measures the whole decoding and reports any of its errors,
/// a malformed body included, as a parse failure.
public protocol DataDecoder {
    /// Decodes a value from bytes.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T

    /// The deserialize stage of this decoder; a ``DataDeserializer``, which hands the bytes on, by default.
    var bodyDeserializer: any Deserializer { get }

    /// Decodes a value from what ``bodyDeserializer`` produced.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - object: What the deserializer produced; the body's bytes by default.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the object.
    func decode<T: Decodable>(_ type: T.Type, fromDeserialized object: Any) throws -> T
}

extension DataDecoder {
    /// A ``DataDeserializer``: the body's bytes go to the parse stage unchanged.
    public var bodyDeserializer: any Deserializer { DataDeserializer() }

    /// Decodes a value from the body's bytes with ``DataDecoder/decode(_:from:)``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - object: The body's bytes, as ``DataDeserializer`` hands them on.
    /// - Returns: The decoded value.
    /// - Throws: What ``DataDecoder/decode(_:from:)`` throws, or `DecodingError.typeMismatch` when the object is not
    ///   `Data`.
    public func decode<T: Decodable>(_ type: T.Type, fromDeserialized object: Any) throws -> T {
        try decode(type, from: DataParser.parse(object))
    }
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}
