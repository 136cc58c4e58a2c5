extension APIClient {
    /// A request's response object together with the exchange that produced it: the request as sent, the HTTP
    /// response and the time each stage took.
    ///
    /// ```swift
    /// let response = try await client.response(for: GetUser(id: 42))
    /// print(response.value.name, response.http.headers[.eTag] ?? "", response.metrics)
    /// ```
    public struct Response<Value> {
        /// The response object.
        public var value: Value
        /// The request as built and sent.
        public var request: URLRequest
        /// The HTTP response: status, headers and body.
        public var http: HTTPResponse
        /// The time each stage took.
        public var metrics: PipelineMetrics

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - value: The response object.
        ///   - request: The request as sent.
        ///   - http: The HTTP response.
        ///   - metrics: The time each stage took.
        public init(value: Value, request: URLRequest, http: HTTPResponse, metrics: PipelineMetrics) {
            self.value = value
            self.request = request
            self.http = http
            self.metrics = metrics
        }
    }
}

extension APIClient.Response: Sendable where Value: Sendable {}
