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
    /// The deserialize stage of ``responseDecoder``, its ``DataDecoder/responseDeserializer``: for a
    /// `JSONDocumentDecoder`, its JSON parser with its limits, reading an empty body as `null`; for any other decoder
    /// by default, a ``DataDeserializer``, which hands the bytes on for the decoder to decode them in the parse stage
    /// in one go.
    public var deserializer: (any Deserializer)? {
        responseDecoder.responseDeserializer
    }

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
    /// Decodes the response with ``responseDecoder`` from the representation its ``DataDecoder/ResponseParser``
    /// made: the body's bytes, by default.
    ///
    /// - Parameter representation: The parse stage's input.
    /// - Returns: The response.
    /// - Throws: What ``responseDecoder`` throws.
    public func parse(_ representation: ResponseParser.Representation) throws -> Response {
        try responseDecoder.decode(Response.self, parsed: representation)
    }
}

extension Endpoint where Response: Decodable, ResponseDecoder == JSONDocumentDecoder {
    /// Decodes the response with ``responseDecoder`` from the document the deserialize stage parsed.
    ///
    /// - Parameter json: The response document.
    /// - Returns: The response.
    /// - Throws: `DecodingError` with the path of the problem and what was found there.
    public func parse(_ json: JSON) throws -> Response {
        try responseDecoder.decode(Response.self, from: json)
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
