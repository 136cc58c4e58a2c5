/// The ``Request`` an ``APIDefinition`` compiles down to, with the type its response decodes into.
///
/// ``Client/perform(_:expecting:)`` creates one; create it yourself to hand a definition to code that takes a
/// request.
public struct APIDefinitionRequest<Definition: APIDefinition, Response: Decodable>: Request {
    /// The response object.
    public typealias ResponseObject = Response

    /// The definition.
    public let definition: Definition

    /// Creates the request for a definition.
    ///
    /// - Parameters:
    ///   - definition: The definition.
    ///   - response: The type the response decodes into.
    public init(_ definition: Definition, expecting response: Response.Type = Response.self) {
        self.definition = definition
    }

    /// Builds the request: the path appended to the base URL, the method, the headers, and the parameters as the
    /// encoding strategy says.
    ///
    /// - Returns: The request.
    /// - Throws: ``EndpointBuildError`` naming the definition and what could not be built.
    public func build() throws -> URLRequest {
        let name = endpointName
        var query = ""
        var body: Data?
        switch definition.encoding.kind {
        case .ignore:
            break
        case .query(let parameters):
            let json: JSON
            do {
                // Sorted keys, so that the same parameters always make the same URL.
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                json = try JSON(parsing: encoder.encode(parameters))
            } catch {
                throw EndpointBuildError(
                    endpoint: name,
                    field: "encoding",
                    reason: "the parameters did not encode: \(error)"
                )
            }
            guard let pairs = QueryPair.flattening(json) else {
                throw EndpointBuildError(
                    endpoint: name,
                    field: "encoding",
                    reason: "query parameters must encode to a JSON object, not \(json.kind)"
                )
            }
            query = QueryEncoding.default.encode(pairs, spaceAsPlus: false)
        case .body(let parameters, let encoder):
            do {
                body = try encoder.encode(parameters)
            } catch {
                throw EndpointBuildError(endpoint: name, field: "encoding", reason: "the body did not encode: \(error)")
            }
        }
        guard let url = definition.baseURL.appending(encodedPath: definition.path, encodedQuery: query) else {
            throw EndpointBuildError(
                endpoint: name,
                field: "path",
                reason: "\"\(definition.path)\" does not make a valid URL with \(definition.baseURL)"
            )
        }
        var request = URLRequest(url: url)
        request.httpMethod = definition.method.rawValue
        try request.setTimeout(definition.timeout, endpoint: name)
        for (name, value) in (definition.headers ?? [:]).sorted(by: { $0.key < $1.key }) {
            try HeaderValidation.check(name: name, value: value, endpoint: endpointName)
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let body {
            request.httpBody = body
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        return request
    }

    /// The definition's type and, for an enum, its case without associated values: `AccountsAPIDefinition.update`.
    private var endpointName: String {
        let value = String(describing: definition)
        return "\(Definition.self).\(value.prefix { $0 != "(" })"
    }

    /// Decodes the response with the definition's ``APIDefinition/responseDecoder``.
    ///
    /// - Parameter json: The response document.
    /// - Returns: The response.
    /// - Throws: `DecodingError` with the path of the problem.
    public func parse(_ json: JSON) throws -> Response {
        try definition.responseDecoder.decode(Response.self, from: json)
    }
}

extension APIDefinitionRequest: SampleDataProviding {
    /// The definition's sample data.
    public var sampleData: Data? { definition.sampleData }
}

extension Client {
    /// Performs an API definition and decodes its response.
    ///
    /// ```swift
    /// let account = try await client.perform(AccountsAPIDefinition.details, expecting: Account.self)
    /// ```
    ///
    /// - Parameters:
    ///   - definition: The definition to perform.
    ///   - type: The type the response decodes into; ``EmptyResponse`` to ignore the body, `Data` for the bytes.
    /// - Returns: The decoded response.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func perform<Definition: APIDefinition, Response: Decodable>(
        _ definition: Definition,
        expecting type: Response.Type
    ) async throws(SluiceError) -> Response {
        try await perform(APIDefinitionRequest(definition, expecting: type))
    }
}
