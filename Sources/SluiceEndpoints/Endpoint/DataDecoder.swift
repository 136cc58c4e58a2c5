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
/// A decoder only decodes; the ``Endpoint`` that uses it chooses the pipeline's stages. With a decoder that reads
/// bytes in one go, such as `JSONDecoder`, `PropertyListDecoder` or the one above, the endpoint's deserialize stage
/// hands the bytes on unchanged (and measures next to nothing), and its parse stage calls ``decode(_:from:)``,
/// measuring the whole decoding and reporting any of its errors, a malformed body included, as a parse failure. With
/// `JSONDocumentDecoder`, the endpoint parses the JSON in the deserialize stage, with the decoder's own deserializer
/// limits, and decodes from the document in the parse stage. To split a decoder's work between the stages some other
/// way, implement the endpoint's ``Request/deserializer`` and ``Request/parse(_:)``.
public protocol DataDecoder {
    /// Decodes a value from bytes.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}

extension DataDecoder {
    /// The deserialize stage for this decoder: for a `JSONDocumentDecoder`, its JSON parser with its limits, reading
    /// an empty body as `null`; for any other decoder, a `DataDeserializer`, which hands the bytes on.
    var stageDeserializer: any Deserializer {
        (self as? JSONDocumentDecoder)?.responseDeserializer ?? DataDeserializer()
    }

    /// Decodes a value from what ``stageDeserializer`` produced: the document a `JSONDocumentDecoder` parsed, or the
    /// bytes another decoder decodes in one go.
    func decode<T: Decodable>(_ type: T.Type, fromStage object: Any) throws -> T {
        if let decoder = self as? JSONDocumentDecoder {
            return try decoder.decode(type, fromStageObject: object)
        }
        return try decode(type, from: DataParser.parse(object))
    }
}
