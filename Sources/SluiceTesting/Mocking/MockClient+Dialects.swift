public import SluiceEndpoints

// Stubs for the requests the other endpoint styles compile down to, so that a test names what it knows.
extension MockClient {
    /// Registers a stub for the cases of an API definition performed with `Client.perform(_:expecting:)`.
    ///
    /// ```swift
    /// mock.stub(AccountsAPI.self, expecting: Account.self, where: { $0 == .details }, .json(#"{"name": "Ada"}"#))
    /// ```
    ///
    /// - Parameters:
    ///   - definition: The definition type.
    ///   - type: The type its response decodes into.
    ///   - predicate: Whether a definition value matches; every value by default.
    ///   - response: The answer.
    /// - Returns: The stub.
    @discardableResult
    public func stub<Definition: APIDefinition, Response: Decodable & SendableMetatype>(
        _ definition: Definition.Type,
        expecting type: Response.Type,
        where predicate: @escaping @Sendable (Definition) -> Bool = { _ in true },
        _ response: MockClient.Response<Response>
    ) -> MockClient.Stub {
        stub(APIDefinitionRequest<Definition, Response>.self, where: { predicate($0.definition) }, response)
    }

    /// Registers a stub for an endpoint definition, as a `Repository` built on this client performs it.
    ///
    /// ```swift
    /// let repository = Repository(client: mock, server: Server([.production: URL(string: "https://api.example.com")!]))
    /// mock.stub(Following.self, .json(#"[{"id": 1, "login": "ada"}]"#))
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint definition type.
    ///   - response: The answer, decoded into the endpoint's response definition.
    /// - Returns: The stub.
    @discardableResult
    public func stub<Endpoint: EndpointDefinition>(
        _ endpoint: Endpoint.Type,
        _ response: MockClient.Response<Endpoint.Response>
    ) -> MockClient.Stub {
        stub(GenericRequest<Endpoint>.self, response)
    }
}
