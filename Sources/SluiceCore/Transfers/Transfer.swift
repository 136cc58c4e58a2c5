/// A transfer under way in a task of its own: its progress, newest first, and its outcome.
///
/// ``Download`` and ``Upload`` are each one; copies share the task.
struct Transfer<Value: Sendable>: Sendable {
    /// The progress the operation reports; keeps the newest value for a reader that falls behind, and ends with the
    /// operation.
    let progress: AsyncStream<TransferProgress>

    private let task: Task<Result<Value, SluiceError>, Never>

    /// Starts the operation at once.
    ///
    /// - Parameter operation: The transfer, reporting its progress to the continuation it is given.
    init(
        _ operation:
            @escaping @Sendable (AsyncStream<TransferProgress>.Continuation) async -> Result<Value, SluiceError>
    ) {
        let (progress, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self,
            bufferingPolicy: .bufferingNewest(1)
        )
        self.progress = progress
        task = Task {
            defer { continuation.finish() }
            return await operation(continuation)
        }
    }

    /// Waits for the outcome; cancelling the waiting task cancels the transfer.
    func finished() async throws(SluiceError) -> Value {
        let task = self.task
        return try await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        .get()
    }

    /// Cancels the transfer.
    func cancel() {
        task.cancel()
    }
}
