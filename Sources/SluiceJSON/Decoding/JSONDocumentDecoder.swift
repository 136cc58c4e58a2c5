/// Decodes `Decodable` models straight from a ``JSON`` document, with strategies like Foundation's
/// `JSONDecoder`.
///
/// The decoder reads the document's index in place: keys are compared as bytes, keyed containers look for the
/// next key after the previous one found, and then in the place where the same lookup found its key in the object
/// before (so a model finds each key at the first or second comparison, whether its properties follow the
/// document's order or another order kept from one object to the next), and no intermediate dictionaries or arrays
/// are built.
///
/// ```swift
/// struct Event: Decodable {
///     let eventId: Int
///     let startsAt: Date
/// }
///
/// var decoder = JSONDocumentDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.dateDecodingStrategy = .iso8601
/// let event = try decoder.decode(Event.self, from: Data(#"{"event_id": 7, "starts_at": "2026-03-01T09:30:00Z"}"#.utf8))
/// ```
///
/// Errors are Foundation's `DecodingError`, with the coding path of the value and a message that names what was
/// expected and what was found, such as `expected Int, found string "7"`.
public struct JSONDocumentDecoder: Sendable {
    /// How `Date` values are decoded; ``DateDecodingStrategy/deferredToDate`` by default.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// How `Data` values are decoded; ``DataDecodingStrategy/base64`` by default.
    public var dataDecodingStrategy: DataDecodingStrategy
    /// How object keys are matched to coding keys; ``KeyDecodingStrategy/useDefaultKeys`` by default.
    public var keyDecodingStrategy: KeyDecodingStrategy
    /// How infinities and NaN written as strings are decoded; ``NonConformingFloatDecodingStrategy/throw`` by
    /// default.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy
    /// Values handed to the models' `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]
    /// The parser and limits used by ``decode(_:from:)-(_,Data)``.
    public var deserializer: JSONDeserializer

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - dateDecodingStrategy: How `Date` values are decoded.
    ///   - dataDecodingStrategy: How `Data` values are decoded.
    ///   - keyDecodingStrategy: How object keys are matched to coding keys.
    ///   - nonConformingFloatDecodingStrategy: How infinities and NaN written as strings are decoded.
    ///   - userInfo: Values handed to the models' `init(from:)`.
    ///   - deserializer: The parser and limits for decoding from bytes.
    public init(
        dateDecodingStrategy: DateDecodingStrategy = .deferredToDate,
        dataDecodingStrategy: DataDecodingStrategy = .base64,
        keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys,
        nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy = .throw,
        userInfo: [CodingUserInfoKey: any Sendable] = [:],
        deserializer: JSONDeserializer = JSONDeserializer(emptyBody: .reject)
    ) {
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
        self.keyDecodingStrategy = keyDecodingStrategy
        self.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
        self.userInfo = userInfo
        self.deserializer = deserializer
    }

    /// Decodes a value from a JSON value.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - json: The JSON value; coding paths in errors start from it.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the coding path and what was found there.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from json: JSON) throws -> T {
        try TapeDecoder(storage: json.storage, root: json.entry, options: self).decodeRoot(type)
    }

    /// Parses a JSON document and decodes a value from it.
    ///
    /// Bytes that are not valid JSON throw what `JSONDecoder` throws for them, `DecodingError.dataCorrupted` with an
    /// empty coding path, so that code written for `JSONDecoder` catches it; the ``JSONError`` under it, as the
    /// context's `underlyingError`, says what was wrong and where: its byte offset, line and column. To have the
    /// ``JSONError`` itself, parse with ``deserializer`` and decode with ``decode(_:from:)-(_,JSON)``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The document's bytes.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError.dataCorrupted` over a ``JSONError`` when the bytes are not valid JSON;
    ///   `DecodingError` with the coding path of the value at fault when the document does not have the expected
    ///   shape.
    public func decode<T: Decodable>(_ type: T.Type = T.self, from data: Data) throws -> T {
        let document: JSON
        do {
            document = try deserializer.document(from: data)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "The given data was not valid JSON.",
                    underlyingError: error
                )
            )
        }
        return try decode(type, from: document)
    }
}

extension JSON {
    /// Decodes a `Decodable` value from this JSON value.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder and its strategies; a default ``JSONDocumentDecoder`` when omitted.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` with the coding path and what was found there.
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSONDocumentDecoder = .init()) throws -> T
    {
        try decoder.decode(type, from: self)
    }
}
