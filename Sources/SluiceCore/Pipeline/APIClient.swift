/// The default ``Client``: runs each request through a ``RequestPerformer``, a status check, a ``Deserializer``,
/// the request's parser and the request's `parse`.
///
/// ```swift
/// let client = APIClient()  // the platform's default performer, JSONDeserializer
/// let user = try await client.perform(GetUser(id: 42))
/// ```
///
/// Each stage is replaceable: pass another performer (a stub in tests, a decorated performer that retries or
/// authenticates), another deserializer (for a service that does not speak JSON), or another status validation.
///
/// Every failure is thrown as one ``SluiceError``, wrapped once at the stage that failed, carrying the request,
/// the response when one arrived, and the underlying error.
public struct APIClient: Client {
    /// Sends requests and receives responses.
    public var requestPerformer: any RequestPerformer
    /// Deserializes bodies for requests that name no deserializer of their own.
    public var deserializer: any Deserializer
    /// The statuses accepted; any other fails the request with ``SluiceError/Code/status``.
    public var acceptableStatus: StatusValidation
    /// The longest a request may take, all stages and attempts included, or `nil` for no limit.
    ///
    /// A request still in its transport at the deadline is cancelled; one that passes it while being built,
    /// deserialized or parsed fails when that stage ends. Either way the error is ``SluiceError/Code/timedOut``
    /// and names the stage.
    public var deadline: Duration?
    /// The clock the ``deadline`` is measured on; a `ContinuousClock` by default, a `TestClock` from SluiceTesting in
    /// tests that pass a deadline without waiting for it.
    ///
    /// Stage times in ``PipelineMetrics`` are always measured on a `ContinuousClock`.
    public var clock: any Clock<Duration>
    /// What receives the scopes of each request (the request, its stages, its attempts on the wire and their
    /// connections), to make spans, metrics or logs of them; `nil`, as by default, for none, which costs nothing.
    ///
    /// See <doc:ObservingRequests>.
    public var instrumentation: (any RequestInstrumentation)?

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - requestPerformer: The transport; ``defaultPerformer()`` by default: Sluice's own transport on Linux,
    ///     URLSession on Apple platforms.
    ///   - deserializer: The default deserializer; a `JSONDeserializer` by default.
    ///   - acceptableStatus: The statuses accepted; 2xx by default.
    ///   - deadline: The longest a request may take, all stages and attempts included; no limit by default.
    ///   - clock: The clock the deadline is measured on; a `ContinuousClock` by default.
    ///   - instrumentation: What receives each request's scopes; none by default.
    public init(
        requestPerformer: any RequestPerformer = APIClient.defaultPerformer(),
        deserializer: any Deserializer = JSONDeserializer(),
        acceptableStatus: StatusValidation = .successful,
        deadline: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        instrumentation: (any RequestInstrumentation)? = nil
    ) {
        self.requestPerformer = requestPerformer
        self.deserializer = deserializer
        self.acceptableStatus = acceptableStatus
        self.deadline = deadline
        self.clock = clock
        self.instrumentation = instrumentation
    }

    /// The performer a client uses when it is given none.
    ///
    /// On Linux, a ``SocketRequestPerformer``: Sluice's own HTTP/1.1 transport, with HTTPS from the system's OpenSSL,
    /// the environment's proxies and compressed bodies, handing what it does not send itself (another scheme;
    /// `https://` where OpenSSL cannot be loaded) to a ``NetworkRequestPerformer``. On Apple platforms a
    /// ``NetworkRequestPerformer``: URLSession there uses the system's TLS, trust settings, proxies and HTTP/2, and
    /// costs little. Either way the performer keeps its cookies in a store of its own, in memory: two clients made
    /// with the default never send each other's cookies (see <doc:Transports#Cookies> to share one). To choose, pass
    /// the performer:
    ///
    /// ```swift
    /// let onURLSession = APIClient(requestPerformer: NetworkRequestPerformer())
    /// ```
    ///
    /// - Returns: A new performer, with its own connections.
    public static func defaultPerformer() -> any RequestPerformer {
        #if os(Linux)
        SocketRequestPerformer()
        #else
        NetworkRequestPerformer()
        #endif
    }

    /// Performs a request and returns its response object.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The request's response object.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
        try await run(request).value
    }

    /// Performs a request and returns its response object with the HTTP response and the time each stage took.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The response object, the request as sent, the HTTP response and the stage times.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func response<R: Request>(for request: R) async throws(SluiceError) -> APIClient.Response<R.ResponseObject> {
        try await run(request)
    }

    /// Runs one request's stages in order: build, transport (the performer, with its decorators and any cache
    /// among them), status check, deserialize, parse with the request's parser, and the request's `parse`.
    ///
    /// Each stage notes in `record` what it produced and how long it took; whatever stage fails, the error carries
    /// the record, and the observers' finish event is sent with it once, at the end.
    private func run<R: Request>(_ request: R) async throws(SluiceError) -> APIClient.Response<R.ResponseObject> {
        var record = PipelineRecord()
        do {
            // Read only with a deadline, so that a request without one reads no other clock.
            let elapsed = deadline.map { _ in Stopwatch(self.clock) }
            let (urlRequest, context) = try build(request, into: &record, elapsed: elapsed)
            let response = try await transport(urlRequest, in: context, into: &record, elapsed: elapsed) {
                try await $0.perform($1)
            }
            record.response = response
            record.metrics.responseBodyBytes = response.body.count
            try checkStatus(of: response, for: request, sent: urlRequest)
            let value: R.ResponseObject
            if let passedThrough = request.responseObject(passingThrough: response.body) {
                value = passedThrough
            } else {
                let deserializer = request.deserializer ?? self.deserializer
                let object = try ResponseStage.deserialize.run(
                    timedInto: &record.metrics.deserialize,
                    tracing: context.tracing
                ) {
                    try deserializer.deserialize(response.body)
                }
                try checkDeadline(elapsed, stage: .deserialize)
                value = try ResponseStage.parse.run(timedInto: &record.metrics.parse, tracing: context.tracing) {
                    try request.parse(R.ResponseParser.parse(object))
                }
            }
            try checkDeadline(elapsed, stage: .parse)
            finish(record, error: nil)
            return APIClient.Response(value: value, request: urlRequest, http: response, metrics: record.metrics)
        } catch {
            throw fail(record, error)
        }
    }

    /// Completes an error with what the record holds (the request, the response, the attempts, the credentials
    /// and the stage times), and sends the observers their finish event with it.
    func fail(_ record: PipelineRecord, _ error: SluiceError) -> SluiceError {
        var failure = error.adding(request: record.request, response: record.response)
        if let context = record.context {
            failure.attempts = max(context.attempts, 1)
            failure.attemptFailures = context.failures
            failure.credentials = context.credentials
        }
        failure.metrics = record.metrics
        finish(record, error: failure)
        return failure
    }

    /// What one request's stages have produced so far, for the error and the observers' finish event.
    struct PipelineRecord {
        var request: URLRequest?
        var response: HTTPResponse?
        var metrics = PipelineMetrics()
        /// The context shared with the performers, from the moment the request is built.
        var context: RequestContext?
    }

    /// The build stage: builds the request, makes its context, and notes both and the stage's time in the record.
    func build<R: Request>(
        _ request: R,
        into record: inout PipelineRecord,
        elapsed: Stopwatch?
    ) throws(SluiceError) -> (URLRequest, RequestContext) {
        let clock = ContinuousClock()
        let start = clock.now
        let urlRequest: URLRequest
        do {
            urlRequest = try request.buildStage()
        } catch {
            if let instrumentation {
                RequestTracing.failedBuild(of: request, from: start, error: error, to: instrumentation)
            }
            throw error
        }
        record.request = urlRequest
        let end = clock.now
        let context = RequestContext(request: urlRequest, builtBy: request) { [instrumentation] id in
            instrumentation.map {
                RequestTracing(
                    $0,
                    request: urlRequest,
                    id: id,
                    template: request.urlTemplate,
                    start: start,
                    background: false
                )
            }
        }
        context.tracing?.stage("build", from: start, to: end, error: nil)
        record.context = context
        record.metrics.requestBodyBytes = urlRequest.httpBody?.count ?? 0
        record.metrics.build = end - start
        try checkDeadline(elapsed, stage: .build)
        if Task.isCancelled {
            throw SluiceError(.cancelled, stage: .build, underlyingError: CancellationError())
        }
        return (urlRequest, context)
    }

    /// The transport stage, in any of its forms: runs `send` on the performer with the request's context bound (the
    /// performers see it; the rest of the pipeline needs none), within what is left of the deadline, wraps what it
    /// throws, and notes the stage's time in the record, however it ends.
    func transport<Response: Sendable>(
        _ urlRequest: URLRequest,
        in context: RequestContext,
        into record: inout PipelineRecord,
        elapsed: Stopwatch?,
        _ send: @escaping @Sendable (any RequestPerformer, URLRequest) async throws -> Response
    ) async throws(SluiceError) -> Response {
        let start = ContinuousClock.now
        let stage = context.tracing?.beginStage("transport", at: start)
        var failure: SluiceError?
        defer {
            let end = ContinuousClock.now
            record.metrics.transport = end - start
            if let stage {
                context.tracing?.endStage(stage, at: end, error: failure)
            }
        }
        do {
            return try await TransportScope.$current.withValue(context) {
                [requestPerformer, deadline, clock = self.clock] in
                guard let deadline, let elapsed else {
                    return try await send(requestPerformer, urlRequest)
                }
                let response = try await withTimeLimit(deadline - elapsed.read(), clock: clock) {
                    try await send(requestPerformer, urlRequest)
                }
                guard let response else { throw DeadlineExceeded(deadline: deadline) }
                return response
            }
        } catch {
            let wrapped = APIClient.transportError(error, request: urlRequest)
            failure = wrapped
            throw wrapped
        }
    }

    /// The status check: fails with ``SluiceError/Code/status`` and the request's decoded error body when the
    /// client does not accept the response's status.
    func checkStatus<R: Request>(
        of response: HTTPResponse,
        for request: R,
        sent urlRequest: URLRequest
    ) throws(SluiceError) {
        guard !acceptableStatus.accepts(response.status) else { return }
        var error = SluiceError(.status, request: urlRequest, response: response)
        do {
            error.errorResponse = try request.errorResponse(from: response)
        } catch let decodingError {
            error.errorResponseDecodingError = decodingError
        }
        throw error
    }

    /// Sends the observers registered for the request its finish event.
    func finish(_ record: PipelineRecord, error: SluiceError?) {
        record.context?.finish(response: record.response, error: error, metrics: record.metrics)
    }

    /// Fails with ``SluiceError/Code/timedOut`` in the stage just finished, when the deadline has passed on the
    /// client's ``clock``.
    ///
    /// The client checks after each stage, the deserialize stage included, so a request that passes its deadline
    /// while its body is deserialized fails there, naming that stage, without being parsed.
    func checkDeadline(_ elapsed: Stopwatch?, stage: SluiceError.Stage) throws(SluiceError) {
        if let deadline, let elapsed, elapsed.read() > deadline {
            throw SluiceError(.timedOut, stage: stage, message: APIClient.deadlineMessage(deadline, stage: stage))
        }
    }

    /// What a request that passed its deadline fails with, in any stage.
    static func deadlineMessage(_ deadline: Duration, stage: SluiceError.Stage) -> String {
        "the request passed its deadline of \(PipelineMetrics.format(deadline)) during the \(stage) stage"
    }

    /// The transport was still running at the client's deadline.
    struct DeadlineExceeded: Error {
        /// The deadline, for the message.
        let deadline: Duration
    }

    /// Wraps what a performer threw: a ``SluiceError`` passes through with the request added, a cancellation
    /// becomes ``SluiceError/Code/cancelled``, a timeout ``SluiceError/Code/timedOut``, anything else
    /// ``SluiceError/Code/transport``.
    static func transportError(_ error: any Error, request: URLRequest) -> SluiceError {
        if let error = error as? SluiceError {
            return error.adding(request: request, response: nil)
        }
        if error is CancellationError || (error as? URLError)?.code == .cancelled {
            return SluiceError(.cancelled, stage: .transport, request: request, underlyingError: error)
        }
        if (error as? URLError)?.code == .timedOut {
            return SluiceError(.timedOut, stage: .transport, request: request, underlyingError: error)
        }
        if let exceeded = error as? DeadlineExceeded {
            return SluiceError(
                .timedOut,
                stage: .transport,
                message: deadlineMessage(exceeded.deadline, stage: .transport),
                request: request
            )
        }
        return SluiceError(.transport, request: request, underlyingError: error)
    }
}
