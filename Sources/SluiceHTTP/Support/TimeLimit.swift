/// Runs `work` until it ends or `limit` passes on `clock`, whichever is first; when the limit passes the work is
/// cancelled and the result is `nil`.
///
/// Every wait of the package that races a time limit goes through this: `APIClient`'s deadline, `TimeLimitedPerformer`
/// (its head, each read of a time-limited body, a WebSocket handshake) and the URLSession performer's handshake.
///
/// - Parameters:
///   - limit: How long the work may take.
///   - clock: The clock the limit is measured on.
///   - work: The work.
/// - Returns: What the work returned, or `nil` when the limit passed first.
/// - Throws: What the work throws; `CancellationError` when the calling task is cancelled.
package func withTimeLimit<Result: Sendable>(
    _ limit: Duration,
    clock: any Clock<Duration>,
    _ work: @escaping @Sendable () async throws -> Result
) async throws -> Result? {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await clock.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
