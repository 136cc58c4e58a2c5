/// An observer that writes a line when a request starts and one when it finishes, hiding secrets.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().logged(bodyLimit: 1_024))
/// // → #4 POST https://api.example.com/login
/// //     Authorization: <redacted>
/// //     body: {"user":"ada","password":"<redacted>"}
/// // ← #4 200 OK POST https://api.example.com/login in 84.1ms (build 12.0µs, transport 83.9ms, …), 1 attempt
/// ```
///
/// A response that passed through a ``CachingPerformer`` ends its line with what the cache did, such as
/// `, cache: hit` or `, cache: not-stored (the response says no-store)`.
///
/// What the ``Redaction`` hides is shown as `<redacted>`: by default every credential the exchange carried (the
/// values of `Authorization`, `Cookie`, `Set-Cookie` and the like, a URL's password, the credential store's tokens),
/// wherever it appears, also echoed in a response; and the values under names such as `password`, `access_token` or
/// `api_key` (``Redaction/defaultNames``). Bodies, and the response's headers, are logged only when a ``bodyLimit``
/// is set, bodies cut to that many bytes.
///
/// It is also a ``RequestInstrumentation`` that writes the ``LogRecord``s at its ``logLevel`` and above, one line each,
/// such as the pool's when it is given to the transport:
///
/// ```swift
/// let transport = SocketRequestPerformer(instrumentation: LoggingObserver(logLevel: .debug))
/// // · debug connection opened url.scheme=https server.address=api.example.com server.port=443 …
/// ```
public struct LoggingObserver: RequestObserver {
    /// What is hidden.
    public var redaction: Redaction
    /// The most bytes of each body logged, or `nil` to log no bodies.
    public var bodyLimit: Int?
    /// Receives each log entry.
    public var write: @Sendable (String) -> Void
    /// The least severe level of the log records written, as an instrumentation; `nil` for none.
    public var logLevel: LogRecord.Level?

    /// Creates a logging observer.
    ///
    /// - Parameters:
    ///   - redaction: What is hidden; ``Redaction/default`` by default.
    ///   - bodyLimit: The most bytes of each body logged; no bodies by default.
    ///   - write: Receives each log entry; standard output by default.
    ///   - logLevel: The least severe level of the log records written, as an instrumentation; `info` by default.
    public init(
        redaction: Redaction = .default,
        bodyLimit: Int? = nil,
        write: @escaping @Sendable (String) -> Void = { print($0) },
        logLevel: LogRecord.Level? = .info
    ) {
        self.redaction = redaction
        self.bodyLimit = bodyLimit
        self.write = write
        self.logLevel = logLevel
    }

    /// Writes the event's entry.
    ///
    /// - Parameter event: The event.
    public func observe(_ event: RequestEvent) {
        let method = event.unredactedRequest.httpMethod ?? "GET"
        let redactor = Redactor(
            redaction,
            request: event.unredactedRequest,
            response: event.response,
            credentials: event.credentials,
            readingBodies: bodyLimit != nil,
            bodyWindow: Redactor.excerptWindow(limit: bodyLimit ?? 0)
        )
        let url = redactor.url(event.unredactedRequest.url)
        var lines: [String] = []
        switch event.kind {
        case .started:
            lines.append("→ #\(event.id) \(method) \(url)")
            for (name, value) in (event.unredactedRequest.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("    \(name): \(redactor.header(value, of: Header(name)))")
            }
            if let bodyLimit, let body = event.unredactedRequest.httpBody, !body.isEmpty {
                lines.append("    body: \(redactor.body(body, limit: bodyLimit))")
            }
        default:
            let attempts = event.attempts == 1 ? "1 attempt" : "\(event.attempts) attempts"
            let timing = "in \(PipelineMetrics.format(event.metrics.total)) (\(event.metrics))"
            if let error = event.error {
                lines.append(
                    "← #\(event.id) \(method) \(url) failed \(timing), \(attempts): \(redactor.text(error.message))"
                )
            } else {
                let status = event.response.map { "\($0.status) " } ?? ""
                lines.append(
                    "← #\(event.id) \(status)\(method) \(url) \(timing), \(event.metrics.responseBodyBytes) bytes in, "
                        + "\(event.metrics.requestBodyBytes) bytes out, \(attempts)"
                        + (event.response?.cacheOutcome.map { ", cache: \($0)" } ?? "")
                )
            }
            for warning in event.warnings {
                lines.append("    warning: \(redactor.text(warning))")
            }
            if let bodyLimit, let response = event.response {
                for field in response.headers {
                    lines.append("    \(field.name.name): \(redactor.header(field.value, of: field.name))")
                }
                if !response.body.isEmpty {
                    lines.append("    body: \(redactor.body(response.body, limit: bodyLimit))")
                }
            }
        }
        write(lines.joined(separator: "\n"))
    }
}

extension LoggingObserver: RequestInstrumentation {
    /// Does nothing: the observer writes a request's lines from its events.
    ///
    /// - Parameter scope: The scope.
    public func begin(_ scope: InstrumentationScope) {}

    /// Does nothing: the observer writes a request's lines from its events.
    ///
    /// - Parameter scope: The scope.
    public func end(_ scope: InstrumentationScope) {}

    /// Writes a record as one line: `·`, its level, its message and its metadata as `key=value`, each value already
    /// redacted.
    ///
    /// - Parameter record: The record.
    public func log(_ record: LogRecord) {
        var line = "· \(record.level) \(record.message)"
        for attribute in record.metadata {
            line += " \(attribute.key)=\(attribute.value)"
        }
        write(line)
    }
}

extension RequestPerformer {
    /// This performer, logging each request with secrets hidden.
    ///
    /// - Parameters:
    ///   - redaction: What is hidden; ``Redaction/default`` by default.
    ///   - bodyLimit: The most bytes of each body logged; no bodies by default.
    ///   - write: Receives each log entry; standard output by default.
    /// - Returns: The observing performer.
    public func logged(
        redacting redaction: Redaction = .default,
        bodyLimit: Int? = nil,
        to write: @escaping @Sendable (String) -> Void = { print($0) }
    ) -> ObservingPerformer {
        observed(by: LoggingObserver(redaction: redaction, bodyLimit: bodyLimit, write: write))
    }
}
