// The spellings SluiceEndpoints had before each concept kept one name, so that code written against them still
// compiles, with a warning naming the spelling to use. The Migrating article lists them side by side.

extension Server {
    /// The server endpoints that name none use in the current task; ``default`` is now that server.
    @available(*, deprecated, renamed: "default")
    public static var effectiveDefault: Server { .default }
}

extension DataDecoder {
    /// The deserialize stage this decoder had when ``DataDecoder`` chose an endpoint's stages: for
    /// `JSONDocumentDecoder`, its own deserializer with an empty body as `null`; for any other decoder, a
    /// `DataDeserializer`, which hands the bytes on.
    ///
    /// The pipeline no longer reads it: an ``Endpoint``'s ``Request/deserializer`` chooses the deserialize stage.
    @available(
        *,
        deprecated,
        message: "not called by the pipeline: an endpoint's deserialize stage is its `deserializer`"
    )
    public var bodyDeserializer: any Deserializer {
        stageDeserializer
    }

    /// Decodes a value from what ``DataDecoder/bodyDeserializer`` produced, as the parse stage did when
    /// ``DataDecoder`` chose an endpoint's stages.
    ///
    /// The pipeline no longer calls it: an ``Endpoint``'s ``Request/parse(_:)`` decodes the response.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - object: The body's bytes; for `JSONDocumentDecoder`, also a `JSON` document.
    /// - Returns: The decoded value.
    /// - Throws: What ``DataDecoder/decode(_:from:)`` throws, or `DecodingError.typeMismatch` when the object is
    ///   neither.
    @available(
        *,
        deprecated,
        message: "not called by the pipeline: decode bytes with decode(_:from:); an endpoint decodes in `parse(_:)`"
    )
    public func decode<T: Decodable>(_ type: T.Type, fromDeserialized object: Any) throws -> T {
        try decode(type, fromStage: object)
    }
}
