/// The default ``RequestPerformer``: sends requests with `URLSession` (FoundationNetworking on Linux).
///
/// Each performer owns one session. Cancelling the task that awaits ``perform(_:)`` cancels the URLSession task
/// at once. A response body larger than ``maximumBodySize`` is not buffered: the transfer is cancelled and the
/// request fails with a ``SluiceError/Code/transport`` error that says so. The request's `timeoutInterval`
/// applies as URLSession defines it; when it runs out the client reports ``SluiceError/Code/timedOut``.
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
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends a request and returns its response, whatever the status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and body.
    /// - Throws: `URLError` when the transfer fails (`.timedOut`, `.cancelled` when the calling task was
    ///   cancelled, `.networkConnectionLost`…), or ``SluiceError`` when the body exceeds ``maximumBodySize``.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let task = session.dataTask(with: request)
        let identifier = task.taskIdentifier
        let tasks = self.tasks
        let limit = maximumBodySize
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if tasks.start(identifier, continuation: continuation, limit: limit) {
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
    }

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

    /// Notes a cancellation that may come before `start`, so that the continuation is never left waiting.
    func cancel(_ identifier: Int) {
        state.withLock { state in
            if state.entries[identifier] == nil {
                state.cancelledEarly.insert(identifier)
            }
        }
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

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = state.withLock({ $0.entries.removeValue(forKey: task.taskIdentifier) }),
            let continuation = entry.continuation
        else { return }
        if let failure = entry.failure ?? error {
            continuation.resume(throwing: failure)
            return
        }
        guard let response = entry.response ?? (task.response as? HTTPURLResponse) else {
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
