/// A service's base URLs, one per ``Environment``, and the environment in use, which can be switched at run time.
///
/// Endpoints resolve their paths against a server's current base URL when they are built, so switching the
/// environment redirects every later request:
///
/// ```swift
/// let api = Server([.production: URL(string: "https://api.example.com")!,
///                   .staging: URL(string: "https://staging.example.com")!])
/// api.environment = .staging
/// ```
///
/// ``default`` is the server of endpoints that name none. It starts with no base URLs; an app configures it once at
/// launch with ``setBaseURL(_:for:)``.
///
/// A server is a reference: every endpoint holding it sees a switch at once, and so does a ``Repository`` for the
/// endpoint definitions that keep the default environment. Its state is guarded by a lock.
public final class Server: Sendable {
    private let state: Locked<(urls: [Environment: URL], environment: Environment)>

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - baseURLs: The base URL of each environment.
    ///   - environment: The environment in use; production by default.
    public init(_ baseURLs: [Environment: URL] = [:], environment: Environment = .production) {
        state = Locked((baseURLs, environment))
    }

    /// The server of endpoints that name none: the one a task has scoped with ``withDefault(_:operation:)``, or else
    /// the process's own, which an app configures once at launch.
    ///
    /// ```swift
    /// Server.default.setBaseURL(URL(string: "https://api.example.com"), for: .production)
    /// ```
    ///
    /// Read it where it is used, as an endpoint that names no server does when it is built. A copy kept (passed to
    /// a `Definition` in a `static let`, stored in a property) is the server of the task that first read it: within
    /// a test's ``withDefault(_:operation:)``, that test's server, for the rest of the process. Leave a definition's
    /// server `nil` to have its endpoint use the default.
    public static var `default`: Server { scopedDefault ?? shared }

    /// The default of tasks outside any ``withDefault(_:operation:)``.
    private static let shared = Server()

    @TaskLocal private static var scopedDefault: Server?

    /// Runs an operation in which ``default`` is the given server, for the operation and the tasks it creates only.
    ///
    /// The one way to replace the default: for tests that run in parallel, and for previews.
    ///
    /// ```swift
    /// let local = Server([.production: URL(string: "http://127.0.0.1:8080")!])
    /// try await Server.withDefault(local) {
    ///     try await client.perform(DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e")))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - server: The server to use.
    ///   - operation: The operation; tasks it creates inherit the server.
    /// - Returns: What the operation returns.
    /// - Throws: What the operation throws.
    public static func withDefault<Result>(
        _ server: Server,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $scopedDefault.withValue(server, operation: operation)
    }

    /// The environment in use.
    public var environment: Environment {
        get { state.withLock { $0.environment } }
        set { state.withLock { $0.environment = newValue } }
    }

    /// The base URL of each environment.
    public var baseURLs: [Environment: URL] {
        state.withLock { $0.urls }
    }

    /// Sets, or with `nil` removes, the base URL of an environment.
    ///
    /// - Parameters:
    ///   - url: The base URL.
    ///   - environment: The environment.
    public func setBaseURL(_ url: URL?, for environment: Environment) {
        state.withLock { $0.urls[environment] = url }
    }

    /// The base URL of an environment, by default of the one in use.
    ///
    /// - Parameter environment: The environment; `nil` for the one in use.
    /// - Returns: The base URL.
    /// - Throws: ``Server/MissingBaseURL`` when the environment has no base URL.
    public func baseURL(for environment: Environment? = nil) throws(Server.MissingBaseURL) -> URL {
        let (urls, current) = state.withLock { ($0.urls, $0.environment) }
        let wanted = environment ?? current
        guard let url = urls[wanted] else {
            throw Server.MissingBaseURL(environment: wanted, configured: urls.keys.map(\.rawValue).sorted())
        }
        return url
    }
}
