/// The transport stage: sends a `URLRequest` and returns the ``HTTPResponse``, whatever its status.
///
/// ``NetworkRequestPerformer`` is the default, on `URLSession`. Cross-cutting behaviour (retry, authentication,
/// logging) is written as a performer that wraps another, so that a client is configured by composition.
///
/// A performer that adds a header to every request and delegates the rest:
///
/// ```swift
/// struct UserAgentPerformer: RequestPerformer {
///     let base: any RequestPerformer
///     let userAgent: String
///
///     func perform(_ request: URLRequest) async throws -> HTTPResponse {
///         var request = request
///         request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
///         return try await base.perform(request)
///     }
/// }
/// ```
///
/// A performer returns responses of every status; the client decides which are acceptable. It throws only when
/// there is no response: the connection failed, the task was cancelled, a limit was exceeded.
public protocol RequestPerformer: Sendable {
    /// Sends a request and returns its response.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, of any status.
    /// - Throws: When no complete response arrived; `CancellationError` or a cancellation `URLError` when the
    ///   calling task was cancelled.
    func perform(_ request: URLRequest) async throws -> HTTPResponse
}
