/// What an API endpoint is, as a value: typically an enum with one case per endpoint of a resource, and
/// associated values for their inputs.
///
/// ```swift
/// enum AccountsAPIDefinition {
///     case details
///     case update(details: any JSONRepresentable)
/// }
///
/// extension AccountsAPIDefinition: APIDefinition {
///     var baseURL: URL { URL(string: "https://myapi.com")! }
///     var path: String { "/accounts" }
///     var method: HTTPMethod {
///         switch self {
///         case .details: .GET
///         case .update: .PUT
///         }
///     }
///     var encoding: EncodingStrategy {
///         switch self {
///         case .details: .ignore
///         case .update(let details): .jsonBody(parameters: details)
///         }
///     }
///     var headers: [String: String]? { ["Content-Type": "application/json"] }
/// }
///
/// let account = try await client.perform(AccountsAPIDefinition.details, expecting: Account.self)
/// ```
///
/// Requirements shared by every resource of an API are written once, in a protocol that refines this one and an
/// extension of it:
///
/// ```swift
/// protocol MyAPIDefinition: APIDefinition {}
///
/// extension MyAPIDefinition {
///     var baseURL: URL { URL(string: "https://myapi.com")! }
///     var headers: [String: String]? { ["Content-Type": "application/json"] }
/// }
/// ```
///
/// The path is appended to the base URL's path. ``sampleData`` lets a ``SampleDataClient`` answer without a
/// network, for previews and tests.
public protocol APIDefinition: Sendable {
    /// The API's base URL.
    var baseURL: URL { get }
    /// The endpoint's path, appended to the base URL's path; used as written, so percent-encode what needs it.
    var path: String { get }
    /// The request method.
    var method: HTTPMethod { get }
    /// How the parameters are sent; ``EncodingStrategy/ignore`` by default.
    var encoding: EncodingStrategy { get }
    /// Header fields to send; none by default.
    var headers: [String: String]? { get }
    /// The request's idle timeout (its `timeoutInterval`); the session's default when `nil`, as by default.
    var timeout: Duration? { get }
    /// A response body to answer with when no network is used, or `nil`; `nil` by default.
    var sampleData: Data? { get }
    /// The decoder of the response; a default `JSONDocumentDecoder` by default.
    var responseDecoder: JSONDocumentDecoder { get }
    /// The path with each value written as `{name}`, such as `/users/{id}` for `/users/\(id)`, for the
    /// instrumentation's `url.template` and span name; `nil`, as by default, to name the request by its method.
    var pathTemplate: String? { get }
}

extension APIDefinition {
    /// No parameters.
    public var encoding: EncodingStrategy { .ignore }

    /// No header fields.
    public var headers: [String: String]? { nil }

    /// The session's default timeout.
    public var timeout: Duration? { nil }

    /// No sample data.
    public var sampleData: Data? { nil }

    /// No template.
    public var pathTemplate: String? { nil }

    /// A default `JSONDocumentDecoder`.
    public var responseDecoder: JSONDocumentDecoder { JSONDocumentDecoder() }
}
