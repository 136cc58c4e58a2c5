/// One send of a request on the wire, as the transport reports it to the instrumentation above it: the connection it
/// took, and how it ended.
///
/// The transport begins one with ``TransportScope/beginWireAttempt(_:redirectHop:)`` for each request it writes (the
/// first, and each redirect it follows), and gets `nil` when no instrumentation listens: it then reports nothing.
package protocol WireAttempt: AnyObject, Sendable {
    /// Reports the connection the attempt was sent on, once it is ready.
    ///
    /// - Parameter report: How the connection was had.
    func noteConnection(_ report: ConnectionReport)

    /// Ends the attempt, once: with the response's status and head, or with what failed it.
    ///
    /// - Parameters:
    ///   - response: The response's head, when one arrived.
    ///   - error: What failed the attempt, if anything.
    func end(response: (any ResponseHead)?, error: (any Error)?)
}

extension TransportScope {
    /// Begins an attempt on the wire for the current request, letting the instrumentation write into its header
    /// fields (a trace context); `nil`, and the request untouched, when no instrumentation listens or outside any
    /// scope.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent, after every middleware.
    ///   - redirectHop: 0 for the request itself, then the number of the redirect being followed.
    /// - Returns: The attempt to report to, or `nil`.
    package static func beginWireAttempt(_ request: inout URLRequest, redirectHop: Int) -> (any WireAttempt)? {
        current?.beginWireAttempt(&request, redirectHop: redirectHop)
    }

    /// Runs one attempt's send and ends `attempt` with what it returns or throws; only runs it without an attempt.
    ///
    /// - Parameters:
    ///   - attempt: The attempt begun for the send, if any.
    ///   - send: The send.
    /// - Returns: What `send` returns.
    /// - Throws: What `send` throws.
    package static func reporting<Response: ResponseHead>(
        _ attempt: (any WireAttempt)?,
        _ send: () async throws -> Response
    ) async throws -> Response {
        guard let attempt else { return try await send() }
        do {
            let response = try await send()
            attempt.end(response: response, error: nil)
            return response
        } catch {
            attempt.end(response: nil, error: error)
            throw error
        }
    }
}
