// The spellings SluiceEndpoints had before each concept kept one name, so that code written against them still
// compiles, with a warning naming the spelling to use. The Migrating article lists them side by side.

extension Server {
    /// The server endpoints that name none use in the current task; ``default`` is now that server.
    @available(*, deprecated, renamed: "default")
    public static var effectiveDefault: Server { .default }
}
