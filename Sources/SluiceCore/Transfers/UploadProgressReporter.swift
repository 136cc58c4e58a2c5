/// Hands the progress handler of ``Client/upload(_:)`` to the context of the request it performs.
///
/// `Client.upload(_:)` binds it around its `perform`; the ``RequestContext`` made for that request takes it when it
/// is made, and transports read it there, as ``RequestContext/uploadProgress-property``, the one per-request context.
enum UploadProgressReporter {
    /// Receives the bytes sent so far and, when known, the bytes in all.
    typealias Report = @Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void
    /// A handler, with the body's length when the request says.
    typealias Watch = (report: Report, expected: Int64?)

    /// The handler of the upload the current task performs, or `nil` when no one asked.
    @TaskLocal static var current: Report?

    /// The handler the transports report the current request's body to: the request context's, or, for a client
    /// of its own that runs its performer without a context, the one ``Client/upload(_:)`` bound.
    static var forCurrentRequest: Report? {
        RequestContext.current?.uploadProgress ?? current
    }
}
