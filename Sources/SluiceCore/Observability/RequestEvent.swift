/// Something that happened to a request, as an observer receives it.
public struct RequestEvent: Sendable {
    /// What happened.
    ///
    /// An open set: compare against the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// The request is about to be sent.
        public static let started = Kind(name: "started")
        /// The request has its response object or its error.
        public static let finished = Kind(name: "finished")

        /// The kind's name.
        public var description: String { name }
    }

    /// What happened.
    public let kind: Kind
    /// The request's number in this process, shared by its events.
    public let id: UInt64
    /// The request as sent (for a retried request, the first attempt's).
    public let request: URLRequest
    /// The response, when one arrived.
    public let response: HTTPResponse?
    /// The error, for a request that failed.
    public let error: SluiceError?
    /// The time each stage took and the bytes sent and received; zero in a start event.
    public let metrics: PipelineMetrics
    /// The number of attempts: 1 unless a retrying performer tried again.
    ///
    /// A replay after 401 belongs to the attempt it answers.
    public let attempts: Int
    /// The credentials performers sent with the request beyond its headers as built, noted in its
    /// ``RequestContext``; a ``Redaction`` hides them wherever they appear.
    public let credentials: [String]

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - id: The request's number.
    ///   - request: The request.
    ///   - response: The response, if any.
    ///   - error: The error, if any.
    ///   - metrics: The stage times and byte counts.
    ///   - attempts: The number of transport attempts.
    ///   - credentials: The credentials performers sent with the request.
    public init(
        kind: Kind,
        id: UInt64,
        request: URLRequest,
        response: HTTPResponse? = nil,
        error: SluiceError? = nil,
        metrics: PipelineMetrics = PipelineMetrics(),
        attempts: Int = 1,
        credentials: [String] = []
    ) {
        self.kind = kind
        self.id = id
        self.request = request
        self.response = response
        self.error = error
        self.metrics = metrics
        self.attempts = attempts
        self.credentials = credentials
    }
}
