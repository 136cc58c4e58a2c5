// The spellings SluiceCore had before each concept kept one name, so that code written against them still compiles,
// with a warning naming the spelling to use. The Migrating article lists them side by side.

extension RequestContext {
    /// What receives the bytes of the current request's body sent so far; now a property of the request's context.
    @available(*, deprecated, message: "read the request's context: RequestContext.current?.uploadProgress")
    public static var uploadProgress: (@Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void)? {
        current?.uploadProgress
    }
}
