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
    /// The request as sent (for a retried request, the first attempt's), with its credentials hidden as
    /// ``SluiceError/request`` hides them: an event is a value observers keep and print.
    public var request: URLRequest {
        Redactor(.default, request: unredactedRequest, credentials: credentials).request(unredactedRequest)
    }
    /// The request as sent, credentials and all, for the package's own observers, which redact what they show with
    /// the redaction their user chose.
    package let unredactedRequest: URLRequest
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
    package let credentials: [String]
    /// What the performers warned of while carrying the request, in the finish event.
    ///
    /// Such as a TLS connection whose certificate was not checked. Sluice prints nothing itself: an observer shows
    /// these where its user looks.
    public let warnings: [String]

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
    ///   - credentials: The credentials performers sent with the request, hidden wherever the event shows them.
    ///   - warnings: What the performers warned of.
    public init(
        kind: Kind,
        id: UInt64,
        request: URLRequest,
        response: HTTPResponse? = nil,
        error: SluiceError? = nil,
        metrics: PipelineMetrics = PipelineMetrics(),
        attempts: Int = 1,
        credentials: [String] = [],
        warnings: [String] = []
    ) {
        self.kind = kind
        self.id = id
        self.unredactedRequest = request
        self.response = response
        self.error = error
        self.metrics = metrics
        self.attempts = attempts
        self.credentials = credentials
        self.warnings = warnings
    }
}
