// The JSON engine's decoder is the Endpoint dialect's default response and error decoder. Its stages: its own
// parser in the deserialize stage, its decode from the document in the parse stage.

extension JSONDocumentDecoder: DataDecoder {
    /// `JSON`: the parse stage decodes from the document the deserialize stage parsed.
    public typealias ResponseParser = JSON

    /// The decoder's own deserializer, with the pipeline's rule for an empty body: the deserialize stage of every
    /// dialect that decodes with a `JSONDocumentDecoder`.
    ///
    /// The JSON is parsed with the decoder's limits. An empty body is `null`, as with the client's own deserializer,
    /// since servers send one with 204 and 202: an optional response decodes to `nil`, and any other fails in the
    /// parse stage, saying it found `null`.
    public var responseDeserializer: any Deserializer {
        var deserializer = self.deserializer
        deserializer.emptyBody = .null
        return deserializer
    }

    /// Decodes a value from the document the deserialize stage parsed, with `decode(_:from:)`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - json: The document.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the path of the problem.
    public func decode<T: Decodable>(_ type: T.Type, parsed json: JSON) throws -> T {
        try decode(type, from: json)
    }
}
