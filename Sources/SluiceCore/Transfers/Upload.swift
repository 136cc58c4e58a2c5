/// An upload under way: a request whose body is being sent, the ``progress`` of the bytes sent, and its response
/// object.
///
/// ``Client/upload(_:)`` starts one and returns at once:
///
/// ```swift
/// let upload = client.upload(PutAttachment(id: 7, file: file))
/// for await progress in upload.progress {
///     print(progress.bytesTransferred, progress.expectedBytes ?? -1)
/// }
/// let attachment = try await upload.finished()
/// ```
///
/// The upload runs in a task of its own, whether or not anyone waits for it. ``cancel()`` stops it, and so does
/// cancelling the task waiting in ``finished()``. Copies of an upload share it.
public struct Upload<Value: Sendable>: Sendable {
    /// The bytes of the body sent so far and, when known, the bytes in all, each time the transport sends more.
    ///
    /// The length is known for a `Data` or file body, and for a stream whose request sets `Content-Length`. Values
    /// never go down within an attempt; a retried request starts again from zero. The transport reports them:
    /// ``NetworkRequestPerformer`` with a session of its own counts the bytes as URLSession reads the body for
    /// sending, on Linux as on Apple platforms; a performer that does not report leaves the sequence empty. It ends
    /// when the upload does, however it ends. A reader that falls behind sees the newest value, not every one.
    public let progress: AsyncStream<TransferProgress>

    private let transfer: Transfer<Value>

    /// Starts an upload.
    ///
    /// - Parameter operation: The request, reporting its progress to the continuation it is given.
    init(
        _ operation:
            @escaping @Sendable (AsyncStream<TransferProgress>.Continuation) async -> Result<Value, SluiceError>
    ) {
        transfer = Transfer(operation)
        progress = transfer.progress
    }

    /// Waits until the upload ends, and returns the request's response object.
    ///
    /// Cancelling the waiting task cancels the upload.
    ///
    /// - Returns: The response object.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func finished() async throws(SluiceError) -> Value {
        try await transfer.finished()
    }

    /// Stops the upload; ``finished()`` then throws a ``SluiceError/Code/cancelled`` error.
    public func cancel() {
        transfer.cancel()
    }
}

extension Client {
    /// Starts performing a request whose body is worth watching, reporting the bytes sent as they go.
    ///
    /// The request is performed as ``perform(_:)`` performs it, in a task of its own; ``Upload/progress`` reports
    /// what the transport sends of its body, `Data`, file or multipart stream alike.
    ///
    /// ```swift
    /// let attachment = try await client.upload(PutAttachment(id: 7, file: file)).finished()
    /// ```
    ///
    /// - Parameter request: The request.
    /// - Returns: The upload, already started.
    public func upload<R: Request>(_ request: R) -> Upload<R.ResponseObject> where R.ResponseObject: Sendable {
        Upload { progress in
            let report: @Sendable (Int64, Int64?) -> Void = { sent, expected in
                progress.yield(TransferProgress(bytesTransferred: sent, expectedBytes: expected))
            }
            return await TransportScope.$upload.withValue(report) {
                do throws(SluiceError) {
                    return .success(try await perform(request))
                } catch {
                    return .failure(error)
                }
            }
        }
    }
}
