// The defaults that let most requests write only `build()`.
extension Request {
    /// No deserializer of its own: the client's is used.
    public var deserializer: (any Deserializer)? { nil }

    /// No error body: an unaccepted status is reported with the raw body only.
    ///
    /// - Parameter response: The response with an unaccepted status.
    /// - Returns: `nil`.
    public func errorResponse(from response: HTTPResponse) -> (any Sendable)? { nil }
}

extension Request where ResponseObject: Decodable, ResponseParser == JSON {
    /// Decodes the response object from the document with a default `JSONDocumentDecoder`.
    ///
    /// To decode with strategies (dates, snake-case keys), implement `parse(_:)` with a configured decoder:
    /// `try JSONDocumentDecoder(keyDecodingStrategy: .convertFromSnakeCase).decode(User.self, from: json)`.
    ///
    /// - Parameter json: The response document.
    /// - Returns: The decoded object.
    /// - Throws: `DecodingError` with the coding path and what was found there.
    public func parse(_ json: JSON) throws -> ResponseObject {
        try JSONDocumentDecoder().decode(ResponseObject.self, from: json)
    }
}

extension Request where ResponseObject == Void {
    /// Ignores the body.
    ///
    /// The client does not deserialize the body of a request whose response object is `Void`.
    ///
    /// - Parameter representation: Ignored.
    public func parse(_ representation: ResponseParser.Representation) {}
}

extension Request where ResponseObject == EmptyResponse {
    /// Ignores the body.
    ///
    /// The client does not deserialize the body of a request whose response object is ``EmptyResponse``.
    ///
    /// - Parameter representation: Ignored.
    /// - Returns: An ``EmptyResponse``.
    public func parse(_ representation: ResponseParser.Representation) -> EmptyResponse { EmptyResponse() }
}

extension Request where ResponseObject == Data, ResponseParser == JSON {
    /// The document's JSON text.
    ///
    /// The client hands a request whose response object is `Data` the body's bytes unmodified, without deserializing
    /// them; this is used only when a document is parsed explicitly.
    ///
    /// - Parameter json: A document.
    /// - Returns: The document's compact JSON text.
    public func parse(_ json: JSON) -> Data { json.jsonData }
}
