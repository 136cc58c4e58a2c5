/// One request's scopes, for the instrumentation its client installed: made with its ``RequestContext`` only when
/// there is one, so that a request without one costs a `nil` check at each place a scope would begin.
final class RequestTracing: Sendable {
    typealias Attributes = InstrumentationScope.Attributes

    private struct State {
        /// The transport stage while it runs: the attempts go under it.
        var transport: InstrumentationScope?
        /// The attempts sent so far, for the resend count and the links of the requests that share them.
        var attempts: [InstrumentationScope] = []
        /// Why the next attempt is sent, as a performer noted it (``RequestContext/noteReplay(_:)``).
        var replay: String?
    }

    let instrumentation: any RequestInstrumentation
    /// The request's own scope; `nil` for a call made on behalf of other requests (``DeduplicatingPerformer``'s),
    /// whose attempts go under ``parent``.
    let request: InstrumentationScope?
    /// Where the attempts go when no transport stage runs: the request's scope, or the scope of the request a shared
    /// call was started for.
    let parent: InstrumentationScope?
    /// The name of the request's attempts: OpenTelemetry's span name.
    let spanName: String
    /// The request's ``RequestContext/id``, or that of the request a shared call was started for, for log records.
    let requestID: InstrumentationScope.Value
    /// Whether the request's stages are scopes, as the instrumentation answered for the request
    /// (``RequestInstrumentation/recordsStages(of:)``).
    let recordsStages: Bool
    private let state = Locked(State())

    /// The tracing of a request that begins at `start`.
    init(
        _ instrumentation: any RequestInstrumentation,
        request: URLRequest,
        id: UInt64,
        template: String?,
        start: ContinuousClock.Instant,
        background: Bool,
        links: [InstrumentationScope] = []
    ) {
        self.instrumentation = instrumentation
        spanName = RequestTracing.spanName(of: request, template: template)
        let requestID = InstrumentationScope.Value.int(Int(truncatingIfNeeded: id))
        self.requestID = requestID
        let headed = RequestTracing.head(of: request)
        let scope = InstrumentationScope(.request, name: spanName, parent: nil, start: start) {
            var attributes = RequestTracing.attributes(of: headed, template: template, credentials: [])
            attributes[.requestID] = requestID
            if background {
                attributes[.background] = .bool(true)
            }
            return attributes
        }
        for link in links {
            scope.link(to: link)
        }
        self.request = scope
        self.parent = scope
        instrumentation.begin(scope)
        recordsStages = instrumentation.recordsStages(of: scope)
    }

    /// The tracing of a call made on behalf of another request, whose attempts go under `parent`'s.
    init(sharing parent: RequestTracing, request: URLRequest) {
        instrumentation = parent.instrumentation
        self.request = nil
        self.parent = parent.attemptParent
        spanName = parent.spanName
        requestID = parent.requestID
        recordsStages = parent.recordsStages
    }

    /// The scope a new attempt goes under.
    var attemptParent: InstrumentationScope? { state.withLock { $0.transport } ?? parent }

    /// The attempts sent so far.
    var attempts: [InstrumentationScope] { state.withLock { $0.attempts } }

    // MARK: - Stages

    /// Begins a stage's scope at `start`, under the transport stage for the cache, under the request otherwise; `nil`
    /// for a request whose stages are no scopes.
    func beginStage(_ name: String, at start: ContinuousClock.Instant) -> InstrumentationScope? {
        guard recordsStages else { return nil }
        let scope = InstrumentationScope(
            .stage,
            name: name,
            parent: name == "cache" ? attemptParent : parent,
            start: start
        )
        if name == "transport" {
            state.withLock { $0.transport = scope }
        }
        instrumentation.begin(scope)
        return scope
    }

    /// Ends a stage's scope at `end`, failed with `error` if any.
    func endStage(_ scope: InstrumentationScope, at end: ContinuousClock.Instant, error: (any Error)?) {
        if let error {
            scope.set(.errorType, .string(RequestTracing.errorType(error)))
        }
        state.withLock { state in
            if state.transport === scope {
                state.transport = nil
            }
        }
        scope.finish(at: end, failed: error != nil, to: instrumentation)
    }

    /// A stage that has run, from `start` to `end`, reported at once.
    func stage(
        _ name: String,
        from start: ContinuousClock.Instant,
        to end: ContinuousClock.Instant,
        error: (any Error)?
    ) {
        if let scope = beginStage(name, at: start) {
            endStage(scope, at: end, error: error)
        }
    }

    /// Reports a request whose build failed: a request scope named `HTTP`, since it has no method, with its failed
    /// build stage.
    static func failedBuild(
        of request: some Request,
        from start: ContinuousClock.Instant,
        error: SluiceError,
        to instrumentation: any RequestInstrumentation
    ) {
        var attributes = InstrumentationScope.Attributes()
        if let template = request.urlTemplate {
            attributes[.urlTemplate] = .string(template)
        }
        attributes[.errorType] = .string(errorType(error))
        let scope = InstrumentationScope(.request, name: "HTTP", parent: nil, start: start, attributes: attributes)
        instrumentation.begin(scope)
        let end = ContinuousClock.now
        if instrumentation.recordsStages(of: scope) {
            let stage = InstrumentationScope(.stage, name: "build", parent: scope, start: start, attributes: attributes)
            instrumentation.begin(stage)
            stage.finish(at: end, failed: true, to: instrumentation)
        }
        scope.finish(at: end, failed: true, to: instrumentation)
    }

    // MARK: - The request's end

    /// Ends the request's scope with its outcome, after its own log records: each warning noted, then the outcome.
    ///
    /// - Parameters:
    ///   - response: The response, when one arrived.
    ///   - error: The error, for a request that failed.
    ///   - metrics: The stage times and byte counts.
    ///   - context: The request's context, for the request, credentials and warnings its records are redacted by.
    func endRequest(response: HTTPResponse?, error: SluiceError?, metrics: PipelineMetrics, context: RequestContext) {
        guard let request else { return }
        RequestTracing.note(response: response, error: error, on: request)
        // Set only here, so that a request with no body has nothing to remove.
        if metrics.requestBodyBytes > 0 {
            request.set(.httpRequestBodySize, .int(metrics.requestBodyBytes))
        }
        if response != nil {
            request.set(.httpResponseBodySize, .int(metrics.responseBodyBytes))
        }
        if let level = instrumentation.logLevel {
            logEnd(of: request, error: error, context: context, from: level)
        }
        request.finish(at: .now, failed: error != nil, to: instrumentation)
    }

    /// The attributes of the request's scope its outcome's record carries.
    private static let outcomeKeys: [InstrumentationScope.Key] = [
        .requestID, .httpRequestMethod, .urlFull, .urlTemplate, .httpResponseStatusCode, .errorType, .cacheOutcome,
    ]

    /// Sends the request's own records at its end, those at `level` or above: each warning noted, then its outcome,
    /// every text in them redacted by the request's credentials.
    private func logEnd(
        of scope: InstrumentationScope,
        error: SluiceError?,
        context: RequestContext,
        from level: LogRecord.Level
    ) {
        let (outcomeLevel, outcome): (LogRecord.Level, LogRecord.Message) =
            error == nil ? (.info, .requestFinished) : (.warning, .requestFailed)
        let warnings = level <= .warning ? context.warnings : []
        guard !warnings.isEmpty || level <= outcomeLevel else { return }
        let redactor =
            error != nil || !warnings.isEmpty
            ? Redactor(.default, request: context.request, credentials: context.credentials, readingBodies: false) : nil
        for warning in warnings {
            var metadata = Attributes()
            metadata[.requestID] = requestID
            metadata[.detail] = redactor.map { .string($0.text(warning)) }
            instrumentation.log(
                LogRecord(.warning, .requestWarning, metadata: metadata, activity: .request, scope: scope)
            )
        }
        guard level <= outcomeLevel else { return }
        let attributes = scope.attributes
        var metadata = Attributes()
        for key in RequestTracing.outcomeKeys {
            metadata[key] = attributes[key]
        }
        if let error, let redactor {
            metadata[.detail] = .string(redactor.text(error.message))
        }
        instrumentation.log(LogRecord(outcomeLevel, outcome, metadata: metadata, activity: .request, scope: scope))
    }

    /// Notes the outcome of a request or an attempt: its status, cache outcome and error type.
    static func note(response: (any ResponseHead)?, error: (any Error)?, on scope: InstrumentationScope) {
        let status = response?.status ?? (error as? SluiceError)?.status
        if let status {
            scope.set(.httpResponseStatusCode, .int(status.code))
        }
        if let outcome = response.flatMap({ HTTPCache.Outcome(cacheStatus: $0.headers) }) {
            scope.set(.cacheOutcome, .string(outcome.kind.name))
        }
        if let error {
            scope.set(.errorType, .string(errorType(error)))
        } else if let status, status.code >= 400 {
            scope.set(.errorType, .string(String(status.code)))
        }
    }

    // MARK: - Links

    /// Links the request to the attempts of a call made on its behalf and others', unless they are its own children.
    func link(toAttemptsOf shared: RequestTracing) {
        guard let request, shared.parent !== request, shared.parent?.parent !== request else { return }
        for attempt in shared.attempts {
            request.link(to: attempt)
        }
    }

    // MARK: - Attempts

    /// Notes why the next attempt is sent.
    func noteReplay(_ reason: String) {
        state.withLock { $0.replay = reason }
    }

    /// Begins an attempt's scope, and lets the instrumentation write its context into the request.
    func beginAttempt(
        _ request: inout URLRequest,
        redirectHop: Int,
        context: RequestContext
    ) -> AttemptTracing {
        let start = ContinuousClock.now
        let (sent, replay) = state.withLock { state -> (Int, String?) in
            defer { state.replay = nil }
            return (state.attempts.count, state.replay)
        }
        // A redirect's URL is not the request's, so the template is not its.
        let template = redirectHop == 0 ? context.source?.urlTemplate : nil
        // The request as it is now, before the instrumentation's fields are written into it.
        let sending = RequestTracing.head(of: request)
        let credentials = context.credentials
        let scope = InstrumentationScope(.attempt, name: spanName, parent: attemptParent, start: start) {
            var attributes = RequestTracing.attributes(of: sending, template: template, credentials: credentials)
            if sent > 0 {
                attributes[.httpRequestResendCount] = .int(sent)
            }
            let reason = redirectHop > 0 ? "redirect" : replay ?? (sent > 0 ? "retry" : "first")
            attributes[.attemptReason] = .string(reason)
            if redirectHop > 0 {
                attributes[.attemptRedirectHop] = .int(redirectHop)
            }
            return attributes
        }
        state.withLock { $0.attempts.append(scope) }
        instrumentation.begin(scope)
        var fields = HTTPHeaders()
        instrumentation.inject(into: &fields, for: scope)
        for field in fields {
            do {
                try HeaderValidation.check(name: field.name.name, value: field.value, endpoint: "the instrumentation")
                request.setValue(field.value, forHTTPHeaderField: field.name.name)
            } catch {
                context.noteWarning("the instrumentation's field \(field.name.name) was not sent: \(error.reason)")
            }
        }
        return AttemptTracing(scope: scope, instrumentation: instrumentation, requestID: requestID)
    }

    // MARK: - Attributes

    /// The methods OpenTelemetry's conventions name; any other is `_OTHER`.
    private static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE",
    ]

    /// The span name: `{method} {url.template}`, or `{method}` without a template; `HTTP` for an unknown method.
    static func spanName(of request: URLRequest, template: String?) -> String {
        let method = request.httpMethod ?? "GET"
        guard knownMethods.contains(method) else { return "HTTP" }
        return template.map { "\(method) \($0)" } ?? method
    }

    /// The request without its body, for the attributes a scope makes when first read: the attributes never read the
    /// body, and a scope an instrumentation keeps would keep an upload's bytes alive with it.
    static func head(of request: URLRequest) -> URLRequest {
        guard request.httpBody != nil || request.httpBodyStream != nil else { return request }
        var head = request
        head.httpBody = nil
        head.httpBodyStream = nil
        return head
    }

    /// The attributes of a request as it is about to be sent.
    static func attributes(of request: URLRequest, template: String?, credentials: [String]) -> Attributes {
        var attributes = InstrumentationScope.Attributes()
        let method = request.httpMethod ?? "GET"
        if knownMethods.contains(method) {
            attributes[.httpRequestMethod] = .string(method)
        } else {
            attributes[.httpRequestMethod] = .string("_OTHER")
            attributes[.httpRequestMethodOriginal] = .string(method)
        }
        if let url = request.url {
            if let host = url.host {
                attributes[.serverAddress] = .string(host)
            }
            if let port = url.port ?? defaultPort(of: url.scheme) {
                attributes[.serverPort] = .int(port)
            }
            attributes[.urlFull] = .string(Redactor.fullURL(of: request, redaction: .default, credentials: credentials))
        }
        if let template {
            attributes[.urlTemplate] = .string(template)
        }
        return attributes
    }

    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// `error.type` for what failed a scope: the status code of an unaccepted status, else the error's code.
    static func errorType(_ error: any Error) -> String {
        if let error = error as? SluiceError {
            if error.code == .status, let status = error.status {
                return String(status.code)
            }
            return error.code.description
        }
        if error is CancellationError || (error as? URLError)?.code == .cancelled {
            return SluiceError.Code.cancelled.description
        }
        if (error as? URLError)?.code == .timedOut {
            return SluiceError.Code.timedOut.description
        }
        return SluiceError.Code.transport.description
    }
}

/// One attempt on the wire, as the transport reports it.
final class AttemptTracing: WireAttempt {
    let scope: InstrumentationScope
    private let instrumentation: any RequestInstrumentation
    /// The id of the request the attempt is sent for, for its log records.
    private let requestID: InstrumentationScope.Value

    init(
        scope: InstrumentationScope,
        instrumentation: any RequestInstrumentation,
        requestID: InstrumentationScope.Value
    ) {
        self.scope = scope
        self.instrumentation = instrumentation
        self.requestID = requestID
    }

    func noteConnection(_ report: ConnectionReport) {
        let protocolAttributes: [(InstrumentationScope.Key, InstrumentationScope.Value?)] = [
            (.networkProtocolName, .string("http")),
            (.networkProtocolVersion, .string(report.protocolVersion)),
            (.networkPeerAddress, report.peerAddress.map { .string($0) }),
            (.networkPeerPort, report.peerPort.map { .int($0) }),
        ]
        var attributes = InstrumentationScope.Attributes()
        for (key, value) in protocolAttributes {
            scope.set(key, value)
            attributes[key] = value
        }
        attributes[.networkTransport] = .string(report.transport)
        attributes[.connectionReused] = .bool(report.reused)
        attributes[.connectionID] = .int(Int(truncatingIfNeeded: report.id))
        let connection = InstrumentationScope(
            .connection,
            name: "connection",
            parent: scope,
            start: report.requested,
            attributes: attributes
        )
        instrumentation.begin(connection)
        let phases = [("queue", report.queued), ("dns", report.dns), ("connect", report.connect), ("tls", report.tls)]
        for case (let name, let phase?) in phases {
            let child = InstrumentationScope(.connection, name: name, parent: connection, start: phase.start)
            instrumentation.begin(child)
            child.finish(at: phase.end, failed: false, to: instrumentation)
        }
        connection.finish(at: report.ready, failed: false, to: instrumentation)
        if let level = instrumentation.logLevel, level <= .debug {
            var metadata = InstrumentationScope.Attributes()
            metadata[.requestID] = requestID
            let own = scope.attributes
            for key in [InstrumentationScope.Key.serverAddress, .serverPort, .httpRequestResendCount] {
                metadata[key] = own[key]
            }
            for attribute in attributes {
                metadata[attribute.key] = attribute.value
            }
            instrumentation.log(
                LogRecord(
                    .debug,
                    .attemptConnected,
                    metadata: metadata,
                    activity: .request,
                    scope: scope,
                    instant: report.ready
                )
            )
        }
    }

    func end(response: (any ResponseHead)?, error: (any Error)?) {
        RequestTracing.note(response: response, error: error, on: scope)
        if let response = response as? HTTPResponse {
            scope.set(.httpResponseBodySize, .int(response.body.count))
        }
        let failed = error != nil || (response?.status.code ?? 0) >= 400
        scope.finish(at: .now, failed: failed, to: instrumentation)
    }
}
