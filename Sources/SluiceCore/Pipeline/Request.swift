/// A request: how to build it, and how to turn its response into a typed object.
///
/// A request builds its `URLRequest` in ``build()`` and turns the parser's representation of the body into its
/// ``ResponseObject`` in ``parse(_:)``. The client runs the stages between:
///
/// ```text
/// build() ─> URLRequest ─> RequestPerformer ─> HTTPResponse ─> status check
///         ─> Deserializer ─> Any ─> ResponseParser.parse ─> Representation ─> parse(_:) ─> ResponseObject
/// ```
///
/// Most requests write only ``build()``: the response object picks the rest.
///
/// - A `Decodable` response object gets ``parse(_:)`` for free, decoding the `JSON` document with
///   `JSONDocumentDecoder`.
/// - `Void` and ``EmptyResponse`` ignore the body: the client neither deserializes nor parses it.
/// - `Data` receives the body's bytes unmodified.
///
/// ```swift
/// struct User: Decodable {
///     let id: Int
///     let name: String
/// }
///
/// struct GetUser: Request {
///     typealias ResponseObject = User
///     let id: Int
///
///     func build() throws -> URLRequest {
///         URLRequest(url: URL(string: "https://api.example.com/users/\(id)")!)
///     }
/// }
///
/// let user = try await APIClient().perform(GetUser(id: 42))
/// ```
///
/// A request can also read the `JSON` itself, name a ``Parser`` of its own for another format, name its own
/// ``Deserializer``, and decode the body of an unsuccessful response in ``errorResponse(from:)``.
public protocol Request<ResponseObject>: Sendable {
    /// The type of object the request produces.
    associatedtype ResponseObject

    /// The parser that turns the deserialized body into the representation ``parse(_:)`` takes; `JSON` by
    /// default.
    associatedtype ResponseParser: Parser = JSON

    /// Builds the `URLRequest` to send. Called once per attempt, so that every attempt is built afresh.
    ///
    /// - Returns: The request to send.
    /// - Throws: An error naming what could not be built; nothing is sent.
    func build() throws -> URLRequest

    /// Turns the parser's representation of the body into the response object.
    ///
    /// - Parameter representation: What ``ResponseParser`` produced.
    /// - Returns: The response object.
    /// - Throws: An error saying what was expected and what was found, with where.
    func parse(_ representation: ResponseParser.Representation) throws -> ResponseObject

    /// The deserializer for this request's body, or `nil` (the default) to use the client's.
    var deserializer: (any Deserializer)? { get }

    /// The response object made from the body's bytes alone, with no deserialize or parse stage; `nil` to run them.
    ///
    /// The response object's type picks the implementation when a request type conforms: `()` for `Void`,
    /// ``EmptyResponse`` for it, the body for `Data`, `nil` for every other type. A request whose response object is
    /// a generic parameter, and so has no type when it conforms, gets the same answers by a check of the type when
    /// its response arrives. Implement it to make some other response object from the bytes:
    ///
    /// ```swift
    /// struct Readme: Request {
    ///     typealias ResponseObject = String
    ///
    ///     func build() throws -> URLRequest {
    ///         URLRequest(url: URL(string: "https://example.com/README")!)
    ///     }
    ///
    ///     func responseObject(passingThrough body: Data) -> String? {
    ///         String(decoding: body, as: UTF8.self)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter body: The body of a response whose status the client accepted.
    /// - Returns: The response object, or `nil` to deserialize and parse the body.
    func responseObject(passingThrough body: Data) -> ResponseObject?

    /// Decodes the body of a response whose status the client did not accept, to attach it to the error.
    ///
    /// The default returns `nil`. A request whose server describes failures in a body returns that description
    /// here; ``SluiceError/errorResponse`` carries it. When this throws, the error still reports the status and
    /// keeps the raw body, and ``SluiceError/errorResponseDecodingError`` says why the body did not decode.
    ///
    /// - Parameter response: The response with an unaccepted status.
    /// - Returns: The decoded error body, or `nil`.
    /// - Throws: When the body does not decode.
    func errorResponse(from response: HTTPResponse) throws -> (any Sendable)?

    /// The path the request is built on as a template, such as `/users/{id}`: the few names under which every request
    /// of a kind is counted, where the path itself holds values.
    ///
    /// The default is `nil`. An ``Endpoint`` names its path's template, with the server's base path before it. It
    /// becomes the instrumentation's `url.template` and the span name, `GET /users/{id}` (see
    /// <doc:ObservingRequests>); it must not hold a value of the request.
    var urlTemplate: String? { get }
}
