/// How an ``Endpoint``'s parts go together: its method, path, parameters, headers and server.
///
/// ```swift
/// struct DeleteEvent: Endpoint {
///     static let definition: Definition<DeleteEvent> = Definition(
///         method: .delete,
///         path: "calendars/\(path: \.calendarId)/events/\(path: \.eventId)"
///     )
///
///     typealias Response = Void
///
///     struct PathComponents {
///         let calendarId: String
///         let eventId: String
///     }
///
///     let pathComponents: PathComponents
/// }
/// ```
///
/// The path is appended to the server's base URL for the current environment (a leading `/` does not replace
/// the base URL's own path). Query parameters go in the URL; form parameters become an
/// `application/x-www-form-urlencoded` body. Headers are added in the order of their names, after which a body's
/// `Content-Type` is set from its encoder unless a header here sets it (a `multipart/*` type set here without a
/// `boundary` gets the encoder's). A `Content-Length` set here must be the body's length when that is known. Header
/// names are compared ignoring case, and a name written twice fails the build stage.
public struct Definition<E: Endpoint>: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path, with typed values from the endpoint's `PathComponents`.
    public var path: EndpointPath<E.PathComponents>
    /// The query and form parameters.
    public var parameters: [Parameter<E.Parameters>]
    /// The headers, as written; a name written twice, in any case, fails the build stage.
    public var headers: Headers
    /// The server whose base URL the path is resolved against; ``Server/default`` when `nil`.
    public var server: Server?
    /// How query and form parameters are written.
    public var queryEncoding: QueryEncoding
    /// The request's idle timeout (its `timeoutInterval`), or `nil` for the session's default.
    ///
    /// An attempt fails when nothing arrives for this long. For a limit on the whole exchange, wrap the performer in
    /// a ``TimeLimitedPerformer``; for one on every stage, set ``APIClient/deadline``.
    public var timeout: Duration?

    /// Creates a definition.
    ///
    /// - Parameters:
    ///   - server: The server; ``Server/default`` when `nil`.
    ///   - method: The request method.
    ///   - path: The path, relative to the server's base URL.
    ///   - parameters: The query and form parameters.
    ///   - headers: The headers, a dictionary literal of names and fields.
    ///   - queryEncoding: How query and form parameters are written.
    ///   - timeout: The request's idle timeout; the session's default when `nil`.
    public init(
        server: Server? = nil,
        method: HTTPMethod,
        path: EndpointPath<E.PathComponents>,
        parameters: [Parameter<E.Parameters>] = [],
        headers: Headers = [:],
        queryEncoding: QueryEncoding = .default,
        timeout: Duration? = nil
    ) {
        self.server = server
        self.method = method
        self.path = path
        self.parameters = parameters
        self.headers = headers
        self.queryEncoding = queryEncoding
        self.timeout = timeout
    }
}
