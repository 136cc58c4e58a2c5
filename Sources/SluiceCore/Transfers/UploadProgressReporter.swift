/// Where the transport reports the bytes of a request body it has sent, for the task that asked to know.
///
/// `Client.upload(_:)` binds one for the task that performs its request; the transport reads ``current`` when the
/// request starts and calls it as the body is read for sending.
struct UploadProgressReporter: Sendable {
    /// The reporter of the request the current task is performing, or `nil` when no one asked.
    @TaskLocal static var current: UploadProgressReporter?

    /// Receives the bytes sent so far and, when known, the bytes in all.
    let report: @Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void
}

extension RequestContext {
    /// What receives the bytes of the current request's body sent so far and, when known, the bytes in all; `nil`
    /// when no one asked (the request is not performed through ``Client/upload(_:)``).
    ///
    /// A transport of your own reads it when it starts sending, and calls it as it sends: ``Upload/progress`` then
    /// reports what it says. ``NetworkRequestPerformer`` does so from its URLSession delegate.
    public static var uploadProgress: (@Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void)? {
        UploadProgressReporter.current?.report
    }
}
