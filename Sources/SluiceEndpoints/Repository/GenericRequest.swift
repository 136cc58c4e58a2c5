/// The ``Request`` an ``EndpointDefinition`` compiles down to; a ``Repository`` creates one for each call.
///
/// The parameters are converted to JSON when the request is created, so that the request is a `Sendable` value;
/// a parameter JSON cannot represent is reported when the request is built.
public struct GenericRequest<Endpoint: EndpointDefinition>: Request {
    /// The response definition, whose ``ResponseDefinition/result`` the repository returns.
    public typealias ResponseObject = Endpoint.Response

    /// The base URL the endpoint's path is appended to.
    public let baseURL: URL
    /// The request method.
    public let method: HTTPMethod
    private let parameters: Result<JSON, InvalidFieldError>
    private let query: (any Encodable & Sendable)?
    private let body: (any Encodable & Sendable)?
    private let headers: [String: String]
    private let timeout: Duration?

    /// Creates the request for an endpoint.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - baseURL: The base URL of the endpoint's environment.
    public init(_ endpoint: Endpoint, baseURL: URL) {
        self.baseURL = baseURL
        self.method = endpoint.method
        self.query = endpoint.query
        self.body = endpoint.body
        self.headers = endpoint.headers
        self.timeout = endpoint.timeout
        do {
            parameters = .success(try JSON(foundationObject: endpoint.parameters))
        } catch let error as DecodingError {
            let path = SluiceError.fullPath(of: error)
            let field = "parameters" + JSONPath.render(path).dropFirst()
            let reason: String =
                switch error {
                case .dataCorrupted(let context): context.debugDescription
                default: "\(error)"
                }
            parameters = .failure(InvalidFieldError(endpoint: "\(Endpoint.self)", field: field, reason: reason))
        } catch {
            parameters = .failure(
                InvalidFieldError(endpoint: "\(Endpoint.self)", field: "parameters", reason: "\(error)")
            )
        }
    }

    /// Builds the request: the path appended to the base URL; the parameters in the query for `GET`, `HEAD` and
    /// `DELETE` or in a JSON body otherwise; the typed query and body; the headers and the timeout.
    ///
    /// - Returns: The request.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint and the field that could not be built, such as a
    ///   parameter that JSON cannot represent.
    public func build() throws -> URLRequest {
        try SluiceError.reportingInvalidFields {
            let json = try parameters.get()
            let name = "\(Endpoint.self)"
            var builder = RequestBuilder(endpoint: name, baseURL: baseURL, method: method, path: Endpoint.path)
            builder.headers = headers.map { (name: $0.key, value: $0.value) }
            builder.timeout = timeout
            if method.prefersQueryParameters {
                builder.query = try QueryEncoder(endpoint: name, field: "parameters").pairs(of: json)
            } else if json.count ?? 0 > 0 {
                builder.body = .encoded(.success(.data(json.jsonData, contentType: "application/json")))
            }
            if let query {
                builder.query += try QueryEncoder(endpoint: name, field: "query").pairs(of: query)
            }
            if let body {
                guard case .none = builder.body else {
                    throw InvalidFieldError(
                        endpoint: name,
                        field: "body",
                        reason: "the endpoint has parameters for the body and a body; a request carries one body"
                    )
                }
                builder.body = RequestBuilder.encode(body, with: RequestBuilder.jsonEncoder(), endpoint: name)
            }
            return try builder.build()
        }
    }

    /// Creates the response definition from the document.
    ///
    /// - Parameter json: The response document.
    /// - Returns: The response definition.
    /// - Throws: What the response definition's `init(json:)` throws.
    public func parse(_ json: JSON) throws -> Endpoint.Response {
        try Endpoint.Response(json: json)
    }
}
