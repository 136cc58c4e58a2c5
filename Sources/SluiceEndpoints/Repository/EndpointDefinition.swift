/// An endpoint of the repository layer: what it returns, where it is, how it is called and with which parameters.
///
/// Equivalent to the endpoint's API documentation.
///
/// ```swift
/// struct Following: EndpointDefinition {
///     typealias Response = ArrayResponse<User>
///     static let path = "/user/following"
///     var method: HTTPMethod { .get }
///     var parameters: [String: Any] { ["per_page": 50] }
/// }
/// ```
///
/// Parameters go to the URL query for `GET`, `HEAD` and `DELETE`, flattened as ``EncodingStrategy`` describes
/// for query parameters, and to a JSON body for every other method. A value that JSON cannot represent fails the
/// build stage with the key that holds it.
///
/// An endpoint can also send typed values, checked by the compiler: a ``query`` flattened by the same rule, and a
/// ``body`` encoded as JSON, with its own ``headers`` and ``timeout``:
///
/// ```swift
/// struct SearchUsers: EndpointDefinition {
///     struct Query: Encodable, Sendable {
///         let q: String
///         let tags: [String]
///     }
///
///     typealias Response = ArrayResponse<User>
///     static let path = "/search/users"
///     var method: HTTPMethod { .get }
///     let text: String
///
///     var query: (any Encodable & Sendable)? { Query(q: text, tags: ["swift", "linux"]) }
///     var headers: [String: String] { ["Accept": "application/vnd.github+json"] }
///     var timeout: Duration? { .seconds(10) }
/// }
/// ```
public protocol EndpointDefinition {
    /// The shape of the response.
    associatedtype Response: ResponseDefinition

    /// The path, appended to the base URL of the endpoint's environment.
    static var path: String { get }

    /// The environment the endpoint is called in; ``Environment/production`` by default. Declare another to
    /// call one endpoint elsewhere, such as ``Environment/mock`` for an endpoint the server does not have yet.
    ///
    /// The default follows the app's run-time switch: a ``Repository`` calls an endpoint declaring production in
    /// its server's ``Server/environment``, which is production until the app switches it. Any other environment
    /// is kept whatever the server's; only ``Repository/forcedEnvironment`` overrides it.
    static var environment: Environment { get }

    /// The parameters; none by default.
    var parameters: [String: Any] { get }

    /// The request method.
    var method: HTTPMethod { get }

    /// Typed query parameters, flattened as ``EncodingStrategy`` describes and added after ``parameters``; none by
    /// default.
    var query: (any Encodable & Sendable)? { get }

    /// A typed body, sent as JSON with `Content-Type: application/json` and keys in sorted order; none by default. An endpoint whose
    /// ``parameters`` already go to the body cannot have one too.
    var body: (any Encodable & Sendable)? { get }

    /// Header fields to send, names compared ignoring case; none by default.
    var headers: [String: String] { get }

    /// The request's idle timeout (its `timeoutInterval`); the session's default when `nil`, as by default.
    var timeout: Duration? { get }
}

extension EndpointDefinition {
    /// Production.
    public static var environment: Environment { .production }

    /// No parameters.
    public var parameters: [String: Any] { [:] }

    /// No typed query parameters.
    public var query: (any Encodable & Sendable)? { nil }

    /// No typed body.
    public var body: (any Encodable & Sendable)? { nil }

    /// No header fields.
    public var headers: [String: String] { [:] }

    /// The session's default timeout.
    public var timeout: Duration? { nil }
}

/// A namespace for endpoint definitions: `extension Endpoints { struct Following: EndpointDefinition { … } }`.
///
/// The repository layer's namespace is called `Endpoints` because ``Endpoint`` is the protocol of the
/// declarative dialect. An app that prefers the name `Endpoint` may declare `enum Endpoint {}` of its own, which
/// its code then sees instead of the protocol.
public enum Endpoints: Sendable {}
