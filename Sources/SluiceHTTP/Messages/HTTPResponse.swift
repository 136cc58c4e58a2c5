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
    /// The HTTP version that carried the response, `HTTP/1.1` or `HTTP/2`, when the transport says; `nil` for a
    /// response that no connection carried (a test double's, a cached one made before it was recorded).
    ///
    /// Not compared by `==`, nor hashed: two responses with the same status, fields, body and URL are equal whatever
    /// carried them.
    public var protocolVersion: String?
    /// The fields that came after the body, such as gRPC's `grpc-status` in HTTP/2 trailers.
    ///
    /// Empty when there were none. Not compared by `==`, nor hashed.
    public var trailers: HTTPHeaders = [:]

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

    /// Whether two responses have the same status, fields, body and URL; ``protocolVersion`` and ``trailers`` are not
    /// compared.
    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.url == rhs.url
    }

    /// Hashes the status, fields, body and URL, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(url)
    }
}
