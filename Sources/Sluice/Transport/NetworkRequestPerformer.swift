/// The default ``RequestPerformer``: sends requests with `URLSession` (FoundationNetworking on Linux).
///
/// A performer owns a session made from a configuration, or uses a session you give it (with your delegate, for
/// certificate pinning or metrics). On a session of its own, the performer follows redirects but drops the
/// `Authorization`, `Proxy-Authorization` and `Cookie` headers when a redirect leaves the origin (scheme, host and
/// port) they were sent to; on a given session, the session's delegate decides. Cancelling the task that awaits ``perform(_:)`` cancels the URLSession task at
/// once. A response body larger than ``maximumBodySize`` fails the request with a ``SluiceError/Code/transport``
/// error that says so; on a session of its own the performer stops the transfer as soon as the limit is passed,
/// on a given session once the body has arrived.
///
/// The request's `timeoutInterval` is enforced by the performer itself, the same way on every platform, as an
/// idle timeout: the request fails with `URLError(.timedOut)` when that long passes without a byte of the response
/// arriving (the client reports ``SluiceError/Code/timedOut``). On a given session, whose delegate the performer
/// does not see, the time counts from the start of the request instead. A value of zero or less, NaN, infinity, or
/// one longer than a timer can count (`Int64.max` nanoseconds, about 292 years) disables it.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpMaximumConnectionsPerHost = 16
/// let client = APIClient(requestPerformer: NetworkRequestPerformer(configuration: configuration))
/// ```
public final class NetworkRequestPerformer: RequestPerformer {
    /// The largest response body accepted, in bytes.
    public let maximumBodySize: Int

    private let session: URLSession
    private let tasks: TaskTable
    private let ownsSession: Bool

    /// Creates a performer with its own session.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.ephemeral` by default (no cookies or cache on disk).
    ///   - maximumBodySize: The largest response body accepted, in bytes; 64 MiB by default.
    public init(configuration: URLSessionConfiguration = .ephemeral, maximumBodySize: Int = 64 << 20) {
        self.maximumBodySize = maximumBodySize
        let tasks = TaskTable()
        self.tasks = tasks
        self.session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: nil)
        self.ownsSession = true
    }

    /// Creates a performer that sends requests with a session of yours, leaving its delegate in place.
    ///
    /// Redirects are then your session's to handle: the credentials that a performer with its own session drops
    /// when a redirect leaves their origin (`Authorization`, `Proxy-Authorization`, `Cookie`) are dropped only if
    /// your delegate does so.
    ///
    /// - Parameters:
    ///   - session: The session; the performer does not invalidate it.
    ///   - maximumBodySize: The largest response body accepted, in bytes; 64 MiB by default.
    public init(session: URLSession, maximumBodySize: Int = 64 << 20) {
        self.maximumBodySize = maximumBodySize
        self.tasks = TaskTable()
        self.session = session
        self.ownsSession = false
    }

    /// The requests sent and not yet answered, failed or cancelled; each holds a URLSession task and a waiting
    /// continuation, so zero means none is left behind.
    public var requestsInFlight: Int { tasks.count }

    deinit {
        if ownsSession {
            session.invalidateAndCancel()
        }
    }

    /// Sends a request and returns its response, whatever the status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and body.
    /// - Throws: `URLError` when the transfer fails (`.timedOut`, `.cancelled` when the calling task was
    ///   cancelled, `.networkConnectionLost`…), or ``SluiceError`` when the body exceeds ``maximumBodySize``.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let tasks = self.tasks
        let task: URLSessionDataTask
        if ownsSession {
            task = session.dataTask(with: request)
        } else {
            // The session's delegate is not ours: the completion handler reports the outcome.
            let created = Locked<Int?>(nil)
            task = session.dataTask(with: request) { data, response, error in
                if let identifier = created.withLock({ $0 }) {
                    tasks.finish(identifier, body: data ?? Data(), response: response, error: error)
                }
            }
            created.withLock { $0 = task.taskIdentifier }
        }
        let identifier = task.taskIdentifier
        let limit = maximumBodySize
        let timeout = request.timeoutInterval
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if tasks.start(identifier, continuation: continuation, limit: limit) {
                    if let idleTimeout = Duration(idleTimeout: timeout) {
                        tasks.watch(task, idleTimeout: idleTimeout)
                    }
                    task.resume()
                }
            }
        } onCancel: {
            tasks.cancel(identifier)
            task.cancel()
        }
    }
}

/// The state of the performer's in-flight tasks, and the session delegate that fills it in.
///
/// `@unchecked Sendable`: all mutable state is in a `Locked` box; URLSession calls the delegate methods on its
/// own queue, and `perform` calls `start` and `cancel` from any task.
private final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var continuation: CheckedContinuation<HTTPResponse, any Error>?
        var limit: Int
        var body = Data()
        var response: HTTPURLResponse?
        var failure: (any Error)?
        var lastActivity = ContinuousClock.now
        /// The idle-timeout timer, cancelled when the task ends so that nothing outlives it.
        var timer: (any DispatchSourceTimer)?
    }

    /// The queue the idle-timeout timers fire on.
    private let timers = DispatchQueue(label: "Sluice.NetworkRequestPerformer.timeouts")

    /// In-flight tasks by identifier, and identifiers cancelled before they were started.
    private let state = Locked((entries: [Int: Entry](), cancelledEarly: Set<Int>()))

    /// Registers a task; returns whether to resume it (not when it was cancelled first).
    func start(_ identifier: Int, continuation: CheckedContinuation<HTTPResponse, any Error>, limit: Int) -> Bool {
        let cancelled = state.withLock { state in
            if state.cancelledEarly.remove(identifier) != nil {
                return true
            }
            state.entries[identifier] = Entry(continuation: continuation, limit: limit)
            return false
        }
        if cancelled {
            continuation.resume(throwing: URLError(.cancelled))
        }
        return !cancelled
    }

    /// The number of tasks started and not completed.
    var count: Int { state.withLock { $0.entries.count } }

    /// Notes a cancellation that may come before `start`, so that the continuation is never left waiting.
    func cancel(_ identifier: Int) {
        state.withLock { state in
            if state.entries[identifier] == nil {
                state.cancelledEarly.insert(identifier)
            }
        }
    }

    /// Fails a task with `URLError(.timedOut)` once `idleTimeout` passes without a byte of the response.
    ///
    /// A timer checks when the timeout would end, and again by the time that was left if something arrived
    /// meanwhile. The timer is cancelled when the task ends, releasing everything it holds.
    func watch(_ task: URLSessionTask, idleTimeout: Duration) {
        let identifier = task.taskIdentifier
        let timer = DispatchSource.makeTimerSource(queue: timers)
        timer.setEventHandler { [weak self, weak task] in
            guard let self else { return }
            let remaining = self.state.withLock { state -> Duration? in
                guard var entry = state.entries[identifier] else { return nil }
                let idle = ContinuousClock.now - entry.lastActivity
                if idle < idleTimeout {
                    return idleTimeout - idle
                }
                entry.failure = entry.failure ?? URLError(.timedOut)
                state.entries[identifier] = entry
                return .zero
            }
            switch remaining {
            case .zero?:
                task?.cancel()
            case let remaining?:
                self.state.withLock { $0.entries[identifier]?.timer }?.schedule(
                    deadline: .now() + remaining.dispatchInterval
                )
            case nil:
                break
            }
        }
        let registered = state.withLock { state -> Bool in
            guard state.entries[identifier] != nil else { return false }
            state.entries[identifier]?.timer = timer
            return true
        }
        guard registered else { return }
        timer.schedule(deadline: .now() + idleTimeout.dispatchInterval)
        timer.resume()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = state.withLock { state -> Int? in
            guard var entry = state.entries[dataTask.taskIdentifier] else { return nil }
            entry.response = response as? HTTPURLResponse
            entry.lastActivity = .now
            defer { state.entries[dataTask.taskIdentifier] = entry }
            if response.expectedContentLength > entry.limit {
                entry.failure = TaskTable.tooLarge(declared: response.expectedContentLength, limit: entry.limit)
                return entry.limit
            }
            return nil
        }
        completionHandler(tooLarge == nil ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = state.withLock { state -> Bool in
            guard var entry = state.entries[dataTask.taskIdentifier], entry.failure == nil else { return false }
            defer { state.entries[dataTask.taskIdentifier] = entry }
            entry.lastActivity = .now
            if entry.body.count + data.count > entry.limit {
                entry.failure = TaskTable.tooLarge(declared: nil, limit: entry.limit)
                entry.body = Data()
                return true
            }
            entry.body.append(data)
            return false
        }
        if exceeded {
            dataTask.cancel()
        }
    }

    /// Follows a redirect, without the credentials when it leaves the origin (scheme, host and port) that they
    /// were sent to.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        var redirected = request
        if !TaskTable.sameOrigin(response.url, request.url) {
            for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
                redirected.setValue(nil, forHTTPHeaderField: name)
            }
        }
        completionHandler(redirected)
    }

    static func sameOrigin(_ first: URL?, _ second: URL?) -> Bool {
        guard let first, let second else { return false }
        func origin(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
        }
        return origin(first) == origin(second)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: task.taskIdentifier) }) else { return }
        entry.timer?.cancel()
        resume(entry, response: entry.response ?? task.response, error: error)
    }

    /// Completes a task of a session whose delegate is not this table, from its completion handler.
    func finish(_ identifier: Int, body: Data, response: URLResponse?, error: (any Error)?) {
        guard var entry = state.withLock({ $0.entries.removeValue(forKey: identifier) }) else { return }
        entry.timer?.cancel()
        if body.count > entry.limit {
            entry.failure = entry.failure ?? TaskTable.tooLarge(declared: Int64(body.count), limit: entry.limit)
        }
        entry.body = body
        resume(entry, response: response, error: error)
    }

    private func resume(_ entry: Entry, response: URLResponse?, error: (any Error)?) {
        guard let continuation = entry.continuation else { return }
        if let failure = entry.failure ?? error {
            continuation.resume(throwing: failure)
            return
        }
        guard let response = response as? HTTPURLResponse else {
            continuation.resume(throwing: URLError(.badServerResponse))
            return
        }
        continuation.resume(returning: HTTPResponse(response, body: entry.body))
    }

    private static func tooLarge(declared: Int64?, limit: Int) -> SluiceError {
        let size = declared.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        return SluiceError(
            .transport,
            message: "the response body is \(size), more than the limit of \(limit) bytes"
        )
    }
}

extension HTTPResponse {
    /// Creates a response from URLSession's, with the headers sorted by name (URLSession does not keep their
    /// order).
    fileprivate init(_ response: HTTPURLResponse, body: Data) {
        var headers = HTTPHeaders()
        let fields = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            headers.add(value, for: Header(name))
        }
        self.init(status: HTTPStatus(code: response.statusCode), headers: headers, body: body, url: response.url)
    }
}

extension Duration {
    /// A request's `timeoutInterval` as an idle timeout, in whole milliseconds rounded up; `nil`, for no timeout,
    /// when it is zero or less, NaN, infinite, or longer than a timer can count (`Int64.max` nanoseconds, about 292
    /// years).
    fileprivate init?(idleTimeout seconds: TimeInterval) {
        let milliseconds = (seconds * 1_000).rounded(.up)
        guard milliseconds > 0, milliseconds <= Double(Int64.max / 1_000_000) else { return nil }
        self = .milliseconds(Int64(milliseconds))
    }

    /// This duration for Dispatch, in nanoseconds; `.never` when it is more than Dispatch can count.
    fileprivate var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, overflowAgain) = nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !overflowAgain, let interval = Int(exactly: total) else { return .never }
        return .nanoseconds(interval)
    }
}
