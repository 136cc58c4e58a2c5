// The defaults that let an endpoint declare only what differs from them.
extension Endpoint where PathComponents == Void {
    /// No path components.
    public var pathComponents: Void { () }
}

extension Endpoint where Parameters == Void {
    /// No parameters.
    public var parameters: Void { () }
}

extension Endpoint where HeaderValues == Void {
    /// No header values.
    public var headerValues: Void { () }
}

extension Endpoint where Body == EmptyCodable {
    /// No body.
    public var body: EmptyCodable { EmptyCodable() }
}

extension Endpoint where BodyEncoder == JSONEncoder {
    /// A `JSONEncoder` with its default strategies, writing keys in sorted order so that the same body always
    /// makes the same bytes.
    public var bodyEncoder: JSONEncoder { RequestBuilder.jsonEncoder() }
}

extension Endpoint where ResponseDecoder == JSONDocumentDecoder {
    /// A `JSONDocumentDecoder` with its default strategies.
    public var responseDecoder: JSONDocumentDecoder { JSONDocumentDecoder() }
}

extension Endpoint where ErrorDecoder == JSONDocumentDecoder {
    /// A `JSONDocumentDecoder` with its default strategies.
    public var errorDecoder: JSONDocumentDecoder { JSONDocumentDecoder() }
}

extension Endpoint {
    /// A `DataDeserializer`: the body's bytes go to the parse stage unchanged, for ``responseDecoder`` to decode
    /// them there in one go.
    ///
    /// An endpoint that decodes with `JSONDocumentDecoder` parses the JSON in this stage instead; see ``Endpoint``.
    public var deserializer: (any Deserializer)? { DataDeserializer() }

    /// Decodes ``ErrorResponse`` with ``errorDecoder``; `nil` when the endpoint declares no error response.
    ///
    /// - Parameter response: The response with an unaccepted status.
    /// - Returns: The decoded error response, or `nil`.
    /// - Throws: What ``errorDecoder`` throws.
    public func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        if ErrorResponse.self == EmptyCodable.self {
            return nil
        }
        return try errorDecoder.decode(ErrorResponse.self, from: response.body)
    }
}

extension Endpoint where Response: Decodable {
    /// Decodes the response from the body's bytes with ``responseDecoder``'s ``DataDecoder/decode(_:from:)``, so
    /// that the parse stage measures, and reports the errors of, the whole decoding; a `Data` response is the body
    /// unmodified.
    ///
    /// - Parameter object: The body's bytes, as the deserialize stage hands them on.
    /// - Returns: The response.
    /// - Throws: What ``responseDecoder`` throws, or `DecodingError.typeMismatch` when the object is not `Data`.
    public func parse(_ object: Any) throws -> Response {
        if let bytes = object as? Response {
            return bytes
        }
        return try responseDecoder.decode(Response.self, from: DataParser.parse(object))
    }
}

// The stages of an endpoint that decodes with `JSONDocumentDecoder`: a conformance whose `ResponseDecoder` is that
// decoder picks these members, the more constrained, over the general ones above. A conformance generic over its
// decoder is checked once, for every decoder, so it keeps the general ones.

extension Endpoint where ResponseDecoder == JSONDocumentDecoder {
    /// The deserializer of ``responseDecoder``, so that the JSON is parsed in the deserialize stage with that
    /// decoder's limits; an empty body is `null`.
    public var deserializer: (any Deserializer)? { responseDecoder.responseDeserializer }
}

extension Endpoint where Response: Decodable, ResponseDecoder == JSONDocumentDecoder {
    /// Decodes the response with ``responseDecoder`` from the document the deserialize stage parsed; a `Data`
    /// response is the body unmodified.
    ///
    /// - Parameter object: The `JSON` document; bytes, from a deserializer that hands them on, are parsed first.
    /// - Returns: The response.
    /// - Throws: `DecodingError` with the path of the problem.
    public func parse(_ object: Any) throws -> Response {
        if let bytes = object as? Response {
            return bytes
        }
        return try responseDecoder.decode(Response.self, fromStageObject: object)
    }
}

extension SluiceError {
    /// The error response an endpoint declared, typed, when the server sent one that decoded.
    ///
    /// ```swift
    /// do {
    ///     try await client.perform(DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e")))
    /// } catch {
    ///     if let problem = error.errorResponse(for: DeleteEvent.self) {
    ///         print(problem.message)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter endpoint: The endpoint type that was performed.
    /// - Returns: The decoded error response, or `nil`.
    public func errorResponse<E: Endpoint>(for endpoint: E.Type) -> E.ErrorResponse? {
        errorResponse as? E.ErrorResponse
    }
}
