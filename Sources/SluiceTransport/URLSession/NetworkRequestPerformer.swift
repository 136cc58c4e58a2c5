/// The default ``RequestPerformer``: sends requests with `URLSession` (FoundationNetworking on Linux).
///
/// A performer owns a session made from a configuration, or uses a session you give it (with your delegate, for
/// certificate pinning or metrics). On a session of its own, the performer follows redirects but drops the
/// `Authorization`, `Proxy-Authorization` and `Cookie` headers when a redirect leaves the origin (scheme, host and
/// port) they were sent to, and sends the cookies stored for a redirect's URL on it (those the redirect response set
/// included), as URLSession does without a delegate; on a given session, the session's delegate decides. Cookies are
/// kept in ``cookieStorage``, the configuration's: for the default, `.ephemeral`, a store of the performer's own that
/// no other performer sees. The cookies a request carries from the session's storage are noted in its ``RequestContext`` as credentials
/// (``RequestContext/noteCredential(_:)``), so that logs and fixtures hide them wherever they appear. Cancelling the
/// task that awaits ``perform(_:)`` cancels the URLSession task at once. A response body larger than
/// ``maximumBodySize`` fails the request with a ``SluiceError/Code/transport`` error that says so; on a session of its
/// own the performer stops the transfer as soon as the limit is passed, on a given session once the body has arrived.
///
/// The request's `timeoutInterval` is enforced by the performer itself, the same way on every platform, as an
/// idle timeout: the request fails with `URLError(.timedOut)` when that long passes without a byte of the response
/// arriving (the client reports ``SluiceError/Code/timedOut``). It bounds silence, not length: a response that
/// drips a byte at a time never trips it, so a client of servers it does not control sets ``APIClient/deadline``
/// too (see <doc:ProductionBehaviour>). A request left at `URLRequest`'s default of 60 s
/// gets the session's `timeoutIntervalForRequest` instead, as URLSession gives it (a request set to 60 s
/// explicitly cannot be told from one left at the default, and gets the session's too). On a given session, whose delegate the performer
/// does not see, the time counts from the start of the request instead. A value of zero or less, NaN, infinity, or
/// one longer than a timer can count (`Int64.max` nanoseconds, about 292 years) disables it. On Linux, URLSession
/// is handed the request without that timeout: FoundationNetworking reads it in whole seconds (0.5 s as no time at
/// all, 1.5 s as 1 s) and stops the process on infinity or NaN.
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpMaximumConnectionsPerHost = 16
/// let client = APIClient(requestPerformer: NetworkRequestPerformer(configuration: configuration))
/// ```
public final class NetworkRequestPerformer: RequestPerformer {
    /// The largest response body accepted, in bytes.
    public let maximumBodySize: Int
    /// The most bytes of a streamed body held for a reader that is behind; see ``stream(_:)``.
    public let streamBufferLimit: Int

    /// Where the performer's session keeps cookies: its configuration's `httpCookieStorage`, or `nil` when the
    /// configuration sets no cookies (`httpShouldSetCookies` is `false`).
    ///
    /// For the default configuration, `.ephemeral`, a store of the performer's own, in memory: each read of
    /// `URLSessionConfiguration.ephemeral` makes a new one, so two default performers never share a cookie. Performers
    /// made from one configuration object share its store, as URLSession's sessions do; so do those given
    /// `.default`, whose store is `HTTPCookieStorage.shared`.
    public let cookieStorage: HTTPCookieStorage?

    private let session: URLSession
    private let tasks: TaskTable
    private let ownsSession: Bool
    /// The session's `timeoutIntervalForRequest`, for requests left at `URLRequest`'s default timeout.
    private let sessionTimeout: TimeInterval

    /// Creates a performer with its own session.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration; `.ephemeral` by default (no cookies or cache on disk, and a
    ///     cookie store of the performer's own; see ``cookieStorage``). Its `urlCache` is not used: the performer's
    ///     session has none, and caching is the job of ``HTTPCache`` (``RequestPerformer/cached(in:)``).
    ///   - maximumBodySize: The largest response body accepted, in bytes; 64 MiB by default.
    ///   - streamBufferLimit: The most bytes of a streamed body held for a reader that is behind; 64 MiB by default,
    ///     as for a whole body.
    ///   - followsRedirectsFromHTTPSToHTTP: Whether a redirect from `https` to `http` is followed; not by default,
    ///     since it would send the request in clear text.
    public init(
        configuration: URLSessionConfiguration = .ephemeral,
        maximumBodySize: Int = 64 << 20,
        streamBufferLimit: Int = 64 << 20,
        followsRedirectsFromHTTPSToHTTP: Bool = false
    ) {
        self.maximumBodySize = maximumBodySize
        self.streamBufferLimit = streamBufferLimit
        let tasks = TaskTable(followsRedirectsFromHTTPSToHTTP: followsRedirectsFromHTTPSToHTTP)
        self.tasks = tasks
        #if canImport(FoundationNetworking)
        let delegateQueue: OperationQueue? = BoundedDelegateQueue(limit: 64)
        #else
        let delegateQueue: OperationQueue? = nil
        #endif
        // URLSession's own cache is turned off on the sessions Sluice makes: caching is the HTTP cache's
        // (`cached(in:)`), which works the same on every platform and transport, and two caches would disagree.
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: delegateQueue)
        self.ownsSession = true
        self.cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
        self.sessionTimeout = configuration.timeoutIntervalForRequest
    }

    /// Creates a performer that sends requests with a session of yours, leaving its delegate in place.
    ///
    /// Redirects are then your session's to handle: the credentials that a performer with its own session drops
    /// when a redirect leaves their origin (`Authorization`, `Proxy-Authorization`, `Cookie`) are dropped only if
    /// your delegate does so. Its `URLCache` is yours too: behind an ``HTTPCache``, give it none, so that two caches do
    /// not disagree.
    ///
    /// - Parameters:
    ///   - session: The session; the performer does not invalidate it.
    ///   - maximumBodySize: The largest response body accepted, in bytes; 64 MiB by default.
    public init(session: URLSession, maximumBodySize: Int = 64 << 20) {
        self.maximumBodySize = maximumBodySize
        self.streamBufferLimit = maximumBodySize
        self.tasks = TaskTable(followsRedirectsFromHTTPSToHTTP: false)
        self.session = session
        self.ownsSession = false
        let configuration = session.configuration
        self.cookieStorage = configuration.httpShouldSetCookies ? configuration.httpCookieStorage : nil
        self.sessionTimeout = configuration.timeoutIntervalForRequest
    }

    /// A WebSocket task on the performer's session, not started.
    func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
        session.webSocketTask(with: request)
    }

    /// Whether the performer's session has a `URLCache`: never for a session the performer made, and as configured
    /// for one of yours.

    package var usesURLCache: Bool { session.configuration.urlCache != nil }

    /// The requests sent and not yet answered, failed or cancelled; each holds a URLSession task and a waiting
    /// continuation, so zero means none is left behind.
    public var requestsInFlight: Int { tasks.inFlight.value }

    /// The gauge that counts ``requestsInFlight``, for a test to await a count rather than poll it.
    package var requestsInFlightGauge: Gauge { tasks.inFlight }

    deinit {
        if ownsSession {
            session.invalidateAndCancel()
        }
    }

    /// Sends a request and returns its response, whatever the status.
    ///
    /// A body from an async sequence (`URLRequest.setBody(_:length:)`) is collected whole before URLSession is handed
    /// the request, up to ``maximumAsyncBodySize``, and sent with its `Content-Length`.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and body.
    /// - Throws: `URLError` when the transfer fails (`.timedOut`, `.cancelled` when the calling task was
    ///   cancelled, `.networkConnectionLost`…), or ``SluiceError`` when the body exceeds ``maximumBodySize``, or when
    ///   an async body fails, is longer than ``maximumAsyncBodySize`` or is not its `Content-Length`.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let (request, timeout, upload, attempt) = try await prepare(request)
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
        let limit = maximumBodySize
        return try await TransportScope.reporting(attempt) {
            try await run(task, timeout: timeout) { continuation in
                tasks.start(task.taskIdentifier, continuation: continuation, limit: limit, upload: upload)
            }
        }
    }

    /// A request as URLSession is handed it (checked, framed, and timed by the performer), with the idle timeout the
    /// performer enforces, who wants its upload progress and the instrumentation's attempt, if any; the cookies
    /// URLSession will add are noted.
    ///
    /// URLSession follows redirects inside one task, so the attempt covers them: its fields go on the first request
    /// only, and its status is the last response's.
    ///
    /// The check is the client's (`URLRequest.validateForSending(as:)`), made again for a caller that calls the
    /// performer directly: FoundationNetworking drops a header value holding CR, LF or NUL set one way and sends it
    /// set another, and passes a method or a header name to libcurl as given.
    ///
    /// The idle timeout is the request's own, or the session's when it is left at `URLRequest`'s default, which is
    /// how URLSession reads a request that does not set one.
    ///
    /// An async body is collected into memory first, up to ``maximumAsyncBodySize``, waiting for each chunk up to the
    /// idle timeout: FoundationNetworking reads a body stream on the one queue all its sessions share, so a read that
    /// waits for a producer would hold up every URLSession transfer in the process, and the tasks that create them.
    private func prepare(
        _ request: URLRequest
    ) async throws(SluiceError) -> (
        request: URLRequest, timeout: TimeInterval, upload: TransportScope.UploadWatch?, attempt: (any WireAttempt)?
    ) {
        try request.validateForTransport()
        let upload = NetworkRequestPerformer.uploadProgress(of: request)
        let timeout =
            request.timeoutInterval == URLRequest.defaultTimeoutInterval ? sessionTimeout : request.timeoutInterval
        var sent = request.forThisAttempt
        if let body = sent.asyncBody {
            body.open()
            let channel = body.channel
            channel.waitLimit = Duration(idleTimeout: timeout)
            let collected: Result<Data, SluiceError> = await withTaskCancellationHandler {
                do throws(SluiceError) {
                    return .success(try await channel.collect(upTo: NetworkRequestPerformer.maximumAsyncBodySize))
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                channel.close()
            }
            let bytes = try collected.get()
            if let declared = sent.value(forHTTPHeaderField: "Content-Length").flatMap({ Int64($0) }),
                declared != Int64(bytes.count)
            {
                throw declared < Int64(bytes.count)
                    ? RequestEncoder.longerThanItsLength(declared)
                    : RequestEncoder.shortOfItsLength(Int64(bytes.count), of: declared)
            }
            sent.httpBodyStream = nil
            sent.httpBody = bytes
        }
        sent = sent.framedForURLSession.timedByThePerformer
        noteStoredCookies(for: sent)
        TransportScope.sentRequest?.note(requestAsSent(request))
        // After the report to the cache: what the instrumentation writes is no field a response varies on.
        let attempt = TransportScope.beginWireAttempt(&sent, redirectHop: 0)
        return (sent, timeout, upload, attempt)
    }

    /// The largest request body from an async sequence that the performer sends, in bytes: 64 MiB.
    ///
    /// URLSession is handed such a body whole (see ``perform(_:)``); ``SocketRequestPerformer`` streams one of any
    /// size.
    public static let maximumAsyncBodySize = 64 << 20

    /// Runs a task: registers it in the task table with `register`, which says whether to start it (not when it
    /// was cancelled first), watches its idle time, resumes it, and cancels it at once when the calling task is
    /// cancelled.
    private func run<Response: Sendable>(
        _ task: URLSessionDataTask,
        timeout: TimeInterval,
        register: (CheckedContinuation<Response, any Error>) -> Bool
    ) async throws -> Response {
        let tasks = self.tasks
        let identifier = task.taskIdentifier
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if register(continuation) {
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

extension NetworkRequestPerformer {
    /// Sends a request and returns as soon as the response's head has arrived, with the body arriving in chunks as
    /// URLSession's delegate receives them.
    ///
    /// The request's `timeoutInterval` is the idle timeout between chunks, as for ``perform(_:)``;
    /// ``maximumBodySize`` does not apply, since the body is not held. Cancelling the task that reads the body, or
    /// dropping the body before its end, cancels the URLSession task at once.
    ///
    /// Where URLSession can pause a transfer (Apple platforms), a reader that falls a quarter of
    /// ``streamBufferLimit`` behind pauses it until it has read most of what is waiting. FoundationNetworking on
    /// Linux cannot: suspending a task there takes the transfer out of libcurl, and resuming it sends the request
    /// again from the start. There, the chunks wait in memory for the reader, and a reader that falls more than
    /// ``streamBufferLimit`` behind fails the stream with a ``SluiceError/Code/transport`` error that says so,
    /// rather than holding a body of any size. libcurl waits while 64 pieces of the body wait for the delegate, so
    /// it does not read far ahead of the buffer (see <doc:StreamedResponses>).
    ///
    /// On a session given at creation, whose delegate is not the performer's, the body arrives complete and is
    /// handed out as one chunk.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and the body to read.
    /// - Throws: `URLError` when the transfer fails before the head (`.cancelled` when the calling task was
    ///   cancelled); the body throws what fails it later.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        guard ownsSession else {
            return HTTPResponse.Streamed(try await perform(request))
        }
        let (request, timeout, upload, attempt) = try await prepare(request)
        let tasks = self.tasks
        let task = session.dataTask(with: request)
        let limit = streamBufferLimit
        return try await TransportScope.reporting(attempt) {
            try await run(task, timeout: timeout) { continuation in
                tasks.startStream(task.taskIdentifier, head: continuation, bufferLimit: limit, upload: upload)
            }
        }
    }

    /// Who wants to know how much of a request's body was sent, and the body's length when the request says: its
    /// data's, or its `Content-Length` for a stream (read before it is left out for FoundationNetworking).
    private static func uploadProgress(of request: URLRequest) -> TransportScope.UploadWatch? {
        guard let report = TransportScope.uploadProgress else { return nil }
        let expected =
            request.httpBody.map { Int64($0.count) }
            ?? request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        return (report, expected)
    }

    /// The request as the performer hands it to URLSession, with every cookie ``cookieStorage`` holds for its host
    /// after those of its own `Cookie` field.
    ///
    /// A cache above the performer matches `Vary` against it (see <doc:HTTPCaching>). The cookies are those of the
    /// host whatever their path, and whatever the request's `httpShouldHandleCookies` says: at least what URLSession
    /// sends (FoundationNetworking sends them all), so that two requests that would go with different cookies never
    /// look alike. The fields URLSession adds itself, the same on every request of the process (`User-Agent`,
    /// `Accept-Encoding`, `Accept-Language`), are not seen.
    ///
    /// - Parameter request: The request as the performer would be given it.
    /// - Returns: The request with the cookies of its host.
    public func requestAsSent(_ request: URLRequest) -> URLRequest {
        request.addingEveryCookie(ofItsHostIn: cookieStorage)
    }

    /// Notes the cookies URLSession adds from the session's storage as credentials, so that logs and fixtures hide
    /// them wherever they appear.
    private func noteStoredCookies(for request: URLRequest) {
        guard let cookieStorage, TransportScope.current != nil else { return }
        for cookie in request.storedCookies(in: cookieStorage) {
            TransportScope.noteCredential(cookie.value)
        }
    }
}

extension URLRequest {
    /// The request with its `timeoutInterval` out of the way of FoundationNetworking's own timer, since the
    /// performer enforces the timeout itself.
    ///
    /// FoundationNetworking (URLSession on Linux) arms a timer from a `timeoutInterval` set on the request, in whole
    /// seconds (`Int(timeoutInterval) * 1000` milliseconds): 0.5 s becomes a timer of no time at all, which fails a
    /// request with `URLError(.timedOut)` whenever its response is not there at once, 1.5 s becomes 1 s, zero or
    /// less fails at once too, and infinity or NaN stops the process. There the request goes out with a timeout of
    /// ``urlSessionTimerBackstop`` instead, which that arithmetic carries. Apple's URLSession reads the interval
    /// as given, and the request is unchanged there.
    var timedByThePerformer: URLRequest {
        #if canImport(FoundationNetworking)
        var request = self
        request.timeoutInterval = Self.urlSessionTimerBackstop
        return request
        #else
        return self
        #endif
    }

    /// The timeout of a request that does not set one: 60 s.
    static let defaultTimeoutInterval = URLRequest(url: URL(fileURLWithPath: "/")).timeoutInterval

    /// The timeout FoundationNetworking's own timer is given: about 31.7 years, longer than any the performer
    /// enforces, and small enough that it counts it in milliseconds and nanoseconds without overflow.
    static let urlSessionTimerBackstop: TimeInterval = 1e9
}

extension Duration {
    /// A request's `timeoutInterval` as an idle timeout, in whole milliseconds rounded up; `nil`, for no timeout,
    /// when it is zero or less, NaN, infinite, or longer than a timer can count (`Int64.max` nanoseconds, about 292
    /// years).
    init?(idleTimeout seconds: TimeInterval) {
        let milliseconds = (seconds * 1_000).rounded(.up)
        guard milliseconds > 0, milliseconds <= Double(Int64.max / 1_000_000) else { return nil }
        self = .milliseconds(Int64(milliseconds))
    }
}
