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
///
/// The stage has two forms. ``perform(_:)`` returns the whole response; ``stream(_:)`` returns as soon as the head
/// has arrived, with the body as an ``HTTPBody`` of chunks that arrive as they are read. A performer that implements
/// only ``perform(_:)`` still streams: the default ``stream(_:)`` hands out its whole body as one chunk. A decorator
/// implements both, so that a streamed request passes through it too; see <doc:StreamedResponses>.
public protocol RequestPerformer: Sendable {
    /// Sends a request and returns its response.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, of any status.
    /// - Throws: When no complete response arrived; `CancellationError` or a cancellation `URLError` when the
    ///   calling task was cancelled.
    func perform(_ request: URLRequest) async throws -> HTTPResponse

    /// Sends a request and returns its response as soon as the head has arrived, with the body still arriving.
    ///
    /// Cancelling the task that reads the body, or dropping the body before its end, ends the transfer.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and the body to read.
    /// - Throws: When no head arrived; an error reading the body is thrown by the body.
    func stream(_ request: URLRequest) async throws -> StreamedHTTPResponse
}

extension RequestPerformer {
    /// Sends the request with ``perform(_:)`` and hands out the whole body as one chunk: the streaming form of a
    /// performer that only buffers.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, its body complete.
    /// - Throws: What ``perform(_:)`` throws.
    public func stream(_ request: URLRequest) async throws -> StreamedHTTPResponse {
        StreamedHTTPResponse(try await perform(request))
    }
}
