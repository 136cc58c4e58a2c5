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
    private let parameters: Result<JSON, EndpointBuildError>

    /// Creates the request for an endpoint.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - baseURL: The base URL of the endpoint's environment.
    public init(_ endpoint: Endpoint, baseURL: URL) {
        self.baseURL = baseURL
        self.method = endpoint.method
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
            parameters = .failure(EndpointBuildError(endpoint: "\(Endpoint.self)", field: field, reason: reason))
        } catch {
            parameters = .failure(
                EndpointBuildError(endpoint: "\(Endpoint.self)", field: "parameters", reason: "\(error)")
            )
        }
    }

    /// Builds the request: the path appended to the base URL, and the parameters in the query for `GET`, `HEAD` and
    /// `DELETE` or in a JSON body otherwise.
    ///
    /// - Returns: The request.
    /// - Throws: ``EndpointBuildError`` naming the endpoint and the parameter that JSON cannot represent.
    public func build() throws -> URLRequest {
        let json = try parameters.get()
        let name = "\(Endpoint.self)"
        let inQuery = method.prefersQueryParameters
        var query = ""
        if inQuery, let pairs = QueryPair.flattening(json) {
            query = QueryEncoding.default.encode(pairs, spaceAsPlus: false)
        }
        guard let url = baseURL.appending(encodedPath: Endpoint.path, encodedQuery: query) else {
            throw EndpointBuildError(
                endpoint: name,
                field: "path",
                reason: "\"\(Endpoint.path)\" does not make a valid URL with \(baseURL)"
            )
        }
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        if !inQuery, json.count ?? 0 > 0 {
            request.httpBody = json.jsonData
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
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
