/// What the transport stage produces: the status, the header fields and the body of an HTTP response.
///
/// A ``RequestPerformer`` returns one for every response it receives, whatever its status; the client
/// validates the status afterwards.
public struct HTTPResponse: Sendable, Hashable {
    /// The response status.
    public var status: HTTPStatus
    /// The response header fields, looked up case-insensitively.
    public var headers: HTTPHeaders
    /// The response body; empty when the response has none.
    public var body: Data
    /// The URL the response came from, after any redirects, when the transport knows it.
    public var url: URL?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The response status.
    ///   - headers: The response header fields.
    ///   - body: The response body.
    ///   - url: The URL the response came from.
    public init(status: HTTPStatus, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }
}
