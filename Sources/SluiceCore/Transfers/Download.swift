/// A download under way: a response's body written to a file as it arrives, its ``progress``, and its outcome.
///
/// ``Client/download(_:to:resuming:)`` starts one and returns at once. Wait for the file with ``finished()``,
/// and watch it come with ``progress``:
///
/// ```swift
/// let download = client.download(GetReport(year: 2025), to: destination)
/// for await progress in download.progress {
///     print(progress.bytesTransferred, progress.expectedBytes ?? -1)
/// }
/// let result = try await download.finished()
/// print(result.url.lastPathComponent, result.bytes)
/// ```
///
/// The download runs in a task of its own, whether or not anyone waits for it. ``cancel()`` stops it, and so does
/// cancelling the task waiting in ``finished()``; either way the partial file is kept for a later download to
/// resume when the server gave a validator, as for a connection cut short (see <doc:Downloads>).
///
/// Copies of a download share it: they report the one progress and the one outcome.
public struct Download: Sendable {
    /// The file the download writes once it is complete.
    public let destination: URL

    /// The bytes written so far and, when the server said, the bytes in all, each time bytes reach the file.
    ///
    /// Values never go down: the first comes with the response's head (for a resumed download, the bytes already
    /// in the partial file), then one follows each chunk written; the last of a complete download has
    /// ``TransferProgress/expectedBytes`` equal to ``TransferProgress/bytesTransferred``. The sequence ends when the
    /// download does, however it ends. A reader that falls behind sees the newest value, not every one; one task reads
    /// it.
    public let progress: AsyncStream<TransferProgress>

    private let transfer: Transfer<Download.Result>

    /// Starts a download.
    ///
    /// - Parameters:
    ///   - destination: The file it writes.
    ///   - operation: The download, reporting its progress to the continuation it is given.
    init(
        destination: URL,
        operation:
            @escaping @Sendable (AsyncStream<TransferProgress>.Continuation) async ->
            Swift.Result<
                Download.Result, SluiceError
            >
    ) {
        self.destination = destination
        transfer = Transfer(operation)
        progress = transfer.progress
    }

    /// Waits until the download ends, and returns what it produced.
    ///
    /// Cancelling the waiting task cancels the download.
    ///
    /// - Returns: The file in place, the response it came from, its size, and where it resumed.
    /// - Throws: ``SluiceError``: what failed the request, its body or the file (see <doc:Downloads>).
    public func finished() async throws(SluiceError) -> Download.Result {
        try await transfer.finished()
    }

    /// Stops the download; ``finished()`` then throws a ``SluiceError/Code/cancelled`` error.
    ///
    /// A download already complete is not undone.
    public func cancel() {
        transfer.cancel()
    }
}
