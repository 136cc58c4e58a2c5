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

    /// The definition's ``APIDefinition/pathTemplate`` after its base URL's path, or `nil` when it names none.
    public var urlTemplate: String? {
        definition.pathTemplate.map { RequestBuilder.template($0, on: definition.baseURL) }
    }

    /// Builds the request: the path appended to the base URL, the method, the headers, and the parameters as the
    /// encoding strategy says.
    ///
    /// - Returns: The request.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the definition and what could not be built.
    public func build() throws -> URLRequest {
        try SluiceError.reportingInvalidFields {
            let name = endpointName
            var builder = RequestBuilder(
                endpoint: name,
                baseURL: definition.baseURL,
                method: definition.method,
                path: definition.path
            )
            builder.timeout = definition.timeout
            builder.headers = (definition.headers ?? [:]).map { (name: $0.key, value: $0.value) }
            switch definition.encoding.kind {
            case .ignore:
                break
            case .query(let parameters):
                builder.query = try QueryEncoder(endpoint: name, field: "encoding").pairs(of: parameters)
            case .body(let parameters, let encoder):
                builder.body = RequestBuilder.encode(parameters, with: encoder, endpoint: name, field: "encoding")
            }
            return try builder.build()
        }
    }

    /// The definition's type and, for an enum, its case without associated values: `AccountsAPIDefinition.update`.
    private var endpointName: String {
        let value = String(describing: definition)
        return "\(Definition.self).\(value.prefix { $0 != "(" })"
    }

    /// The deserializer of the definition's ``APIDefinition/responseDecoder``, so that the JSON is parsed in the
    /// deserialize stage with that decoder's limits, as for an ``Endpoint``; an empty body is `null`.
    public var deserializer: (any Deserializer)? { definition.responseDecoder.responseDeserializer }

    /// Decodes the response with the definition's ``APIDefinition/responseDecoder``.
    ///
    /// - Parameter json: The response document.
    /// - Returns: The response.
    /// - Throws: `DecodingError` with the path of the problem.
    public func parse(_ json: JSON) throws -> Response {
        try definition.responseDecoder.decode(Response.self, from: json)
    }
}

extension APIDefinitionRequest: SampleDataClient.Providing {
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
