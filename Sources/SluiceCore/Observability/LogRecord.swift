/// One structured log record, as a ``RequestInstrumentation`` receives it in ``RequestInstrumentation/log(_:)``: a
/// level, a fixed message, and metadata under the names of ``InstrumentationScope/Key``.
///
/// The message is one of a fixed set, never interpolated text, so that a log backend can count and group records by
/// it; what varies goes in ``metadata``. Every value in it has been through the ``Redactor`` of the request it is
/// about, so a credential the request carried never leaves in a record:
///
/// ```swift
/// struct LevelPrinter: RequestInstrumentation {
///     func begin(_ scope: InstrumentationScope) {}
///     func end(_ scope: InstrumentationScope) {}
///
///     func log(_ record: LogRecord) {
///         guard record.level >= .info else { return }
///         let fields = record.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
///         print(record.level, record.message, fields)
///     }
/// }
/// ```
///
/// A record is the request's own (``Activity/request``: sent through the client's instrumentation, on the request's
/// task, with its ``scope``) or its pool's (``Activity/pool``: connections opened and closed, sent through the
/// instrumentation of the ``SocketRequestPerformer`` that owns the pool).
public struct LogRecord: Sendable {
    /// How much a record matters, as swift-log's levels say, from ``trace`` to ``critical``.
    public enum Level: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// Every detail, for following one request's path.
        case trace
        /// What a developer looks at while debugging: each connection opened, taken and closed.
        case debug
        /// What happened in the normal course: a request that finished.
        case info
        /// A normal but significant condition.
        case notice
        /// Something the user must hear of that did not fail the request, or a request that failed.
        case warning
        /// An error.
        case error
        /// A condition that needs attention at once.
        case critical

        /// The level's name, such as `debug`.
        public var description: String {
            switch self {
            case .trace: "trace"
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            case .critical: "critical"
            }
        }

        /// Whether one level is less severe than another.
        ///
        /// - Parameters:
        ///   - lhs: A level.
        ///   - rhs: Another level.
        /// - Returns: Whether `lhs` is less severe than `rhs`.
        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rawValue < rhs.rawValue
        }
    }

    /// A record's fixed message: one of the static members, never text made at run time.
    public struct Message: Sendable, Hashable, CustomStringConvertible {
        /// The message's text.
        public let text: StaticString

        /// Creates a message; a performer of yours may log its own.
        ///
        /// - Parameter text: The message, a literal.
        public init(_ text: StaticString) {
            self.text = text
        }

        /// The message's text.
        public var description: String { text.description }

        /// Whether two messages have the same text.
        ///
        /// - Parameters:
        ///   - lhs: A message.
        ///   - rhs: Another message.
        /// - Returns: Whether their texts are equal.
        public static func == (lhs: Message, rhs: Message) -> Bool {
            lhs.description == rhs.description
        }

        /// Hashes the message's text.
        ///
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(description)
        }

        /// `request finished`: a request had its response, at ``Level/info``.
        public static let requestFinished = Message("request finished")
        /// `request failed`: a request failed, at ``Level/warning``, with its `error.type` and the error's message.
        public static let requestFailed = Message("request failed")
        /// `request warning`: something a performer noted that did not fail the request, at ``Level/warning``, with
        /// the text under ``InstrumentationScope/Key/detail``.
        public static let requestWarning = Message("request warning")
        /// `attempt took a connection`: an attempt had its connection, new or kept alive, at ``Level/debug``.
        public static let attemptConnected = Message("attempt took a connection")
        /// `connection opened`: the pool opened a connection, at ``Level/debug``.
        public static let connectionOpened = Message("connection opened")
        /// `connection closed`: the pool closed a connection an exchange left unfit for another, at ``Level/debug``.
        public static let connectionClosed = Message("connection closed")
        /// `idle connection evicted`: the pool closed a connection idle for its idle timeout, at ``Level/debug``.
        public static let idleConnectionEvicted = Message("idle connection evicted")
        /// `idle connection closed by the server`: the server closed an idle connection, or sent what nobody asked
        /// for, and the pool closed it, at ``Level/debug``.
        public static let idleConnectionClosedByServer = Message("idle connection closed by the server")
        /// `idle connections closed`: the performer was asked to close its idle connections, or was released, at
        /// ``Level/debug``, with how many under ``InstrumentationScope/Key/connectionCount``.
        public static let idleConnectionsClosed = Message("idle connections closed")
    }

    /// Whose activity a record tells of.
    public enum Activity: Sendable, Hashable {
        /// The request's own: sent through its client's instrumentation, on its task.
        case request
        /// The pool's, done for no request in particular: sent through the instrumentation of the performer that
        /// owns the pool.
        case pool
    }

    /// How much the record matters.
    public var level: Level
    /// What happened.
    public var message: Message
    /// What varies: the request's id, the connection's, the origin, the attempt, under the names of
    /// ``InstrumentationScope/Key``, each value redacted.
    public var metadata: InstrumentationScope.Attributes
    /// Whose activity it tells of.
    public var activity: Activity
    /// The scope the record belongs to, for a request's own: the request's or the attempt's, whose
    /// ``InstrumentationScope/state`` holds its span; `nil` for the pool's.
    public var scope: InstrumentationScope?
    /// When it happened.
    public var instant: ContinuousClock.Instant

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - level: How much it matters.
    ///   - message: What happened.
    ///   - metadata: What varies, redacted.
    ///   - activity: Whose activity it tells of.
    ///   - scope: The scope it belongs to, if any.
    ///   - instant: When it happened; now by default.
    public init(
        _ level: Level,
        _ message: Message,
        metadata: InstrumentationScope.Attributes = InstrumentationScope.Attributes(),
        activity: Activity,
        scope: InstrumentationScope? = nil,
        instant: ContinuousClock.Instant = .now
    ) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.activity = activity
        self.scope = scope
        self.instant = instant
    }
}
