extension SampleDataClient {
    /// A request that can answer itself with sample data, for ``SampleDataClient``.
    ///
    /// ``APIDefinitionRequest`` adopts it with its definition's ``APIDefinition/sampleData``.
    public protocol Providing {
        /// The response body to answer with when no network is used, or `nil`.
        var sampleData: Data? { get }
    }
}
