/// Performs requests: runs a ``Request`` through the pipeline and returns its response object.
///
/// ``APIClient`` is the implementation; test doubles implement this protocol too (SluiceTesting's mock client),
/// so code that takes `any Client` can be tested without a network.
///
/// ```swift
/// func loadProfile(using client: any Client) async throws -> User {
///     try await client.perform(GetUser(id: 42))
/// }
/// ```
public protocol Client: Sendable {
    /// Performs a request and returns its response object.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The request's response object.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject
}
