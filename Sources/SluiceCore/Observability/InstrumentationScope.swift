/// One stretch of a request's work as a ``RequestInstrumentation`` sees it: the request, an attempt on the wire, a
/// pipeline stage or a connection, with when it began and ended, its attributes, its parent and its links.
///
/// The pipeline makes each scope and fills it in; the instrumentation reads it in ``RequestInstrumentation/begin(_:)``
/// and ``RequestInstrumentation/end(_:)``, and keeps what it makes for it (its span) in ``state``. A scope is shared
/// by reference, so an instrumentation that keeps one sees what was added to it later.
///
/// The tree under one request (see <doc:ObservingRequests>):
///
/// ```
/// request "GET /users/{id}"
/// ├── stage "build"
/// ├── stage "transport"
/// │   ├── stage "cache"                      (with a CachingPerformer)
/// │   └── attempt "GET /users/{id}"          (one per send: retry, replay after 401, redirect)
/// │       └── connection "connection"        (Sluice's own transport)
/// │           ├── connection "queue" · "dns" · "connect" · "tls"
/// ├── stage "deserialize"
/// └── stage "parse"
/// ```
///
/// `@unchecked Sendable`: what changes is reached only inside its lock, shared by every scope of one request, so that a
/// scope costs no lock of its own.
public final class InstrumentationScope: @unchecked Sendable {
    /// What a scope stands for.
    ///
    /// An open set: compare against the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// The whole request, from the start of its build to its outcome: the logical operation.
        public static let request = Kind(name: "request")
        /// One send on the wire: the first, a retry, a replay after 401, or a redirect's hop.
        ///
        /// OpenTelemetry's HTTP client span.
        public static let attempt = Kind(name: "attempt")
        /// One stage of the pipeline: build, cache, transport, deserialize or parse.
        public static let stage = Kind(name: "stage")
        /// Getting a connection for an attempt, and its phases: waiting in the pool's queue, DNS, connect, TLS.
        public static let connection = Kind(name: "connection")

        /// The kind's name.
        public var description: String { name }
    }

    /// A scope's number in this process, unique among the scopes of every client.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        /// The number, counted from 1.
        public let value: UInt64

        /// The number as text.
        public var description: String { String(value) }
    }

    private struct State {
        /// The attributes, once made; until then the changes made to those the scope began with, in order.
        var attributes: Attributes
        /// Makes the attributes the scope began with, until they are first read: a request's `url.full` and
        /// `server.address` take parsing the URL, which an instrumentation that reads no attribute never pays for.
        var initial: (@Sendable () -> Attributes)?
        /// The keys ``InstrumentationScope/set(_:_:)`` removed while `initial` was pending.
        var removed: [Key] = []
        var end: ContinuousClock.Instant?
        var failed = false
        var links: [InstrumentationScope] = []
        var state: (any Sendable)?

        /// The attributes, made from `initial` and the changes since on first use.
        mutating func resolved() -> Attributes {
            guard let initial else { return attributes }
            var made = initial()
            for key in removed {
                made[key] = nil
            }
            for attribute in attributes {
                made[attribute.key] = attribute.value
            }
            self.initial = nil
            removed = []
            attributes = made
            return made
        }
    }

    /// What the scope stands for.
    public let kind: Kind
    /// The scope's name: for a request and an attempt, OpenTelemetry's span name, `{method} {url.template}` when the
    /// request names a template, else `{method}`; for a stage, the stage's name; for a connection, its phase.
    public let name: String
    /// The scope's number.
    public let id: ID
    /// The scope this one belongs to; `nil` for a request's scope.
    public let parent: InstrumentationScope?
    /// When the scope began.
    public let start: ContinuousClock.Instant
    /// The lock of the request's scopes, the parent's for a child: they are made and ended on the request's task, so
    /// one lock serves them all without waiting.
    private let lock: Locked<Void>
    /// What changes as the scope runs, reached only under `lock`.
    private var guarded: State

    private static let counter = Locked<UInt64>(0)

    init(
        _ kind: Kind,
        name: String,
        parent: InstrumentationScope?,
        start: ContinuousClock.Instant,
        attributes: Attributes = Attributes(),
        initial: (@Sendable () -> Attributes)? = nil
    ) {
        self.kind = kind
        self.name = name
        self.parent = parent
        self.start = start
        self.id = ID(
            value: InstrumentationScope.counter.withLock { counter in
                counter += 1
                return counter
            }
        )
        self.lock = parent?.lock ?? Locked(())
        self.guarded = State(attributes: attributes, initial: initial)
    }

    /// The scope's attributes so far: those known when it began, then every one, when it has ended.
    public var attributes: Attributes { withState { $0.resolved() } }

    /// Runs `body` with the scope's state, under the lock.
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { _ in body(&guarded) }
    }

    /// When the scope ended, or `nil` while it runs.
    public var end: ContinuousClock.Instant? { withState { $0.end } }

    /// Whether the scope ended in failure, as OpenTelemetry's span status `Error`.
    ///
    /// A scope fails with an error; an attempt also with a response of status 400 or above, as the conventions say
    /// of a client span, and a request with a status its client does not accept. ``Key/errorType`` then says what.
    public var failed: Bool { withState { $0.failed } }

    /// Scopes this one is related to without being their child: for a request whose response another request's
    /// attempt fetched (a de-duplicated request joining one in flight), that attempt; for a cache's revalidation in
    /// the background, the request that started it.
    public var links: [InstrumentationScope] { withState { $0.links } }

    /// What the instrumentation keeps for this scope, such as its span; `nil` until it sets it.
    ///
    /// Set it in ``RequestInstrumentation/begin(_:)``; a child scope finds it through ``parent``.
    public var state: (any Sendable)? {
        get { withState { $0.state } }
        set { withState { $0.state = newValue } }
    }

    /// Sets an attribute.
    func set(_ key: Key, _ value: Value?) {
        withState { state in
            if state.initial != nil, value == nil {
                state.removed.append(key)
            }
            state.attributes[key] = value
        }
    }

    /// Adds a link.
    func link(to scope: InstrumentationScope) {
        withState { $0.links.append(scope) }
    }

    /// Ends the scope at `instant`, failed or not, and tells the instrumentation, once.
    func finish(at instant: ContinuousClock.Instant, failed: Bool, to instrumentation: any RequestInstrumentation) {
        let first = withState { state -> Bool in
            guard state.end == nil else { return false }
            state.end = instant
            state.failed = failed
            return true
        }
        if first {
            instrumentation.end(self)
        }
    }
}
