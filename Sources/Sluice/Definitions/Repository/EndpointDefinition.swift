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
}

extension EndpointDefinition {
    /// Production.
    public static var environment: Environment { .production }

    /// No parameters.
    public var parameters: [String: Any] { [:] }
}

/// A namespace for endpoint definitions: `extension Endpoints { struct Following: EndpointDefinition { … } }`.
///
/// The repository layer's namespace is called `Endpoints` because ``Endpoint`` is the protocol of the
/// declarative dialect. An app that prefers the name `Endpoint` may declare `enum Endpoint {}` of its own, which
/// its code then sees instead of the protocol.
public enum Endpoints: Sendable {}
