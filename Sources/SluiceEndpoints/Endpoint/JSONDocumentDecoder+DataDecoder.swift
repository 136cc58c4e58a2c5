// The JSON engine's decoder is the Endpoint dialect's default response and error decoder. The members below are the
// stages the Endpoint and APIDefinition dialects run it in: its parse in the deserialize stage, its decode in the
// parse stage.

extension JSONDocumentDecoder: DataDecoder {}

extension JSONDocumentDecoder {
    /// The decoder's own deserializer, with the pipeline's rule for an empty body: the deserialize stage of every
    /// dialect that decodes with a `JSONDocumentDecoder`.
    ///
    /// The JSON is parsed with the decoder's limits. An empty body is `null`, as with the client's own deserializer,
    /// since servers send one with 204 and 202: an optional response decodes to `nil`, and any other fails in the
    /// parse stage, saying it found `null`.
    var responseDeserializer: JSONDeserializer {
        var deserializer = self.deserializer
        deserializer.emptyBody = .null
        return deserializer
    }

    /// Decodes a value from what the deserialize stage produced: the document `responseDeserializer` parsed, or
    /// the body's bytes from a deserializer that hands them on.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - object: A `JSON` document, or `Data`, which is parsed first.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the path of the problem; for bytes that are not JSON,
    ///   `DecodingError.dataCorrupted` over a `JSONError`.
    func decode<T: Decodable>(_ type: T.Type, fromStageObject object: Any) throws -> T {
        if let data = object as? Data {
            return try decode(type, from: data)
        }
        return try decode(type, from: JSON.parse(object))
    }
}
