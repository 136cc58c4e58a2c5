// The defaults that let most requests write only `build()`.
extension Request {
    /// No deserializer of its own: the client's is used.
    public var deserializer: (any Deserializer)? { nil }

    /// No error body: an unaccepted status is reported with the raw body only.
    ///
    /// - Parameter response: The response with an unaccepted status.
    /// - Returns: `nil`.
    public func errorResponse(from response: HTTPResponse) -> (any Sendable)? { nil }

    /// No template: the instrumentation names the request by its method alone.
    public var urlTemplate: String? { nil }

    /// `nil` for a response object of any type but `Void`, ``EmptyResponse`` and `Data`, whose constrained defaults
    /// are picked when a request type conforms.
    ///
    /// A request whose response object is a generic parameter conforms once for every type it may be, so it gets
    /// this default: it checks the type when the response arrives, so that `perform(_:expecting: Data.self)` on an
    /// enum definition passes the bytes through as a `Data` request does.
    ///
    /// - Parameter body: The body.
    /// - Returns: The response object when the type is one of the three, otherwise `nil`.
    public func responseObject(passingThrough body: Data) -> ResponseObject? {
        if ResponseObject.self == Void.self {
            return () as? ResponseObject
        }
        if ResponseObject.self == EmptyResponse.self {
            return EmptyResponse() as? ResponseObject
        }
        if ResponseObject.self == Data.self {
            return body as? ResponseObject
        }
        return nil
    }
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

// The three defaults below return `ResponseObject?` rather than the type they are constrained to, so that Swift never
// infers a request's response object from them.

extension Request where ResponseObject == Void {
    /// `()`, picked when a request type whose response object is `Void` conforms: the body is ignored.
    ///
    /// - Parameter body: The body, unread.
    /// - Returns: `()`.
    public func responseObject(passingThrough body: Data) -> ResponseObject? { () }
}

extension Request where ResponseObject == EmptyResponse {
    /// An ``EmptyResponse``, picked when a request type whose response object is one conforms: the body is ignored.
    ///
    /// - Parameter body: The body, unread.
    /// - Returns: An empty response.
    public func responseObject(passingThrough body: Data) -> ResponseObject? { EmptyResponse() }
}

extension Request where ResponseObject == Data {
    /// The body unmodified, picked when a request type whose response object is `Data` conforms.
    ///
    /// - Parameter body: The body.
    /// - Returns: The body.
    public func responseObject(passingThrough body: Data) -> ResponseObject? { body }
}
