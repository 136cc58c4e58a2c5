extension SluiceError {
    /// The error a client reports for what a performer threw: a ``SluiceError`` passes through with the request
    /// added, a cancellation becomes ``SluiceError/Code/cancelled``, a timeout ``SluiceError/Code/timedOut``, and
    /// anything else (a `URLError`, a user's error) ``SluiceError/Code/transport`` with it underneath.
    ///
    /// What drives a performer outside a client (an adapter for another library's transport protocol, say) reports
    /// its failures as a client would:
    ///
    /// ```swift
    /// do {
    ///     return try await performer.perform(request)
    /// } catch {
    ///     throw SluiceError(transportFailure: error, request: request)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - error: What the performer threw.
    ///   - request: The request it was sending.
    public init(transportFailure error: any Error, request: URLRequest) {
        self = APIClient.transportError(error, request: request)
    }
}
