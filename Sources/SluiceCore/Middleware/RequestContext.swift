/// What every performer may know about the request it carries, shared through a task local: the request as built,
/// how to build it again for another attempt, how many attempts were made and why they failed, which observers want
/// the request's events, and the request's id.
///
/// This is the middleware contract. The built-in decorators (``RetryingPerformer``, ``AuthenticatingPerformer``,
/// ``ObservingPerformer``, ``DeduplicatingPerformer``) use nothing else, so a performer of yours can do all they do.
/// A performer reaches the context through ``withContext(for:_:)``, which hands it the current request's context,
/// or, when no client is around (the performer is called directly), runs the call as a request of its own
/// (``withContext(forStreaming:_:)`` does the same for ``RequestPerformer/stream(_:)``):
///
/// ```swift
/// struct AttemptHeaderPerformer: RequestPerformer {
///     let base: any RequestPerformer
///
///     func perform(_ request: URLRequest) async throws -> HTTPResponse {
///         try await RequestContext.withContext(for: request) { context in
///             var request = request
///             request.setValue(String(max(context.attempts, 1)), forHTTPHeaderField: "X-Attempt")
///             return try await base.perform(request)
///         }
///     }
/// }
/// ```
///
/// ``APIClient`` makes one context for each request, once it is built, and sends the observers their finish event
/// when the whole pipeline has run. A context made by ``withContext(for:_:)`` for a performer called directly is
/// owned by that call: it sends the finish event, with the transport's time, when the call ends.
///
/// Made for every request, so kept small: the request that builds the `URLRequest` is held for rebuilding (no
/// closure), and the state that performers share sits behind one lock.
public final class RequestContext: Sendable {
    /// The context of the request the current task is performing, or `nil` outside any.
    ///
    /// Bound by ``APIClient`` and by ``withContext(for:_:)``; read it through ``withContext(for:_:)`` so that a
    /// performer called directly works the same way. It is the one task local the transports see too, as the scope of
    /// the request they carry; ``withoutCurrent(isolation:_:)`` runs work outside it.
    public static var current: RequestContext? {
        TransportScope.current as? RequestContext
    }

    /// The request as it was built, before any performer changed it.
    public let request: URLRequest
    /// The request's number in this process, counted from 1, shared by its events.
    public let id: UInt64
    /// The name of the operation the request performs, such as an OpenAPI document's `operationId` (`getItem`), for
    /// logs and span names; `nil` when what made the request gave it none.
    public let operationName: String?
    /// What builds the request again; `nil` for a context made from a `URLRequest` alone.
    let source: (any Request)?
    /// What receives the bytes of the request's body sent so far and, when known, the bytes in all; `nil` when no one
    /// asked (the request is not performed through ``Client/upload(_:)``).
    ///
    /// A transport of your own calls it as it sends the body: ``Upload/progress`` then reports what it says.
    /// ``NetworkRequestPerformer`` and ``SocketRequestPerformer`` call it as they read the body for sending.
    public let uploadProgress: (@Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void)?

    private struct State {
        var attempts = 0
        var failures: [String] = []
        var observers: [(id: ObjectIdentifier, observer: any RequestObserver)] = []
        var credentials: [String] = []
        var warnings: [String] = []
    }

    private let state = Locked(State())
    private static let counter = Locked<UInt64>(0)
    /// The request's scopes, when its client installed an instrumentation; `nil` otherwise, which is all a request
    /// without one pays for it.
    let tracing: RequestTracing?

    /// Creates the context of a request, with a new id.
    ///
    /// A client makes one for each request it performs; run its performer under it with
    /// ``withCurrent(isolation:_:)`` and send the observers their finish event with
    /// ``finish(response:error:metrics:)``. A performer called directly needs neither: ``withContext(for:_:)`` does
    /// both.
    ///
    /// - Parameters:
    ///   - request: The request as built.
    ///   - source: The request that built it, to build it again for another attempt; `nil` when there is none, in
    ///     which case another attempt reuses `request`, and a request with a body stream cannot be sent again.
    ///   - operationName: The name of the operation the request performs, as ``operationName`` gives it.
    ///   - instrumentation: What receives the request's scopes, its own beginning now; none by default.
    public convenience init(
        request: URLRequest,
        builtBy source: (any Request)? = nil,
        operationName: String? = nil,
        instrumentation: (any RequestInstrumentation)? = nil
    ) {
        self.init(request: request, builtBy: source, operationName: operationName) { id in
            instrumentation.map {
                RequestTracing(
                    $0,
                    request: request,
                    id: id,
                    template: source?.urlTemplate,
                    start: .now,
                    background: false
                )
            }
        }
    }

    /// Creates the context of a request, with a new id and the tracing `makeTracing` makes for that id, if any.
    init(
        request: URLRequest,
        builtBy source: (any Request)?,
        operationName: String? = nil,
        tracing makeTracing: (_ id: UInt64) -> RequestTracing?
    ) {
        self.request = request
        self.source = source
        self.operationName = operationName
        self.uploadProgress = TransportScope.upload
        let id = RequestContext.counter.withLock { counter in
            counter += 1
            return counter
        }
        self.id = id
        self.tracing = makeTracing(id)
    }

    // MARK: - Building again

    /// Whether the request can be built again for another attempt: it has a source, no body stream (an
    /// `InputStream` is read once), or an async body (see `URLRequest.setBody(length:_:)`), which each attempt sends
    /// afresh, or refuses with an error that says why when its sequence can be sent once.
    public var canRebuild: Bool { source != nil || request.httpBodyStream == nil || request.asyncBody != nil }

    /// Builds the request again, as for a new attempt, without the changes performers made to it.
    ///
    /// - Returns: A fresh build from the source, or the request as built when the context has no source.
    /// - Throws: What the source's `build()` throws; ``SluiceError/Code/build`` when the request has a body stream
    ///   and no source (see ``canRebuild``).
    public func rebuild() throws -> URLRequest {
        if let source {
            return try source.build()
        }
        guard request.httpBodyStream == nil || request.asyncBody != nil else {
            throw SluiceError(
                .build,
                message: "a request with a body stream cannot be built again without the Request that built it"
            )
        }
        return request
    }

    /// Builds the request again for a new attempt, keeping what performers outside the caller changed.
    ///
    /// Performers between the client and a retry (an authenticating one, a user's own) change the request on its
    /// way in, most often its headers. A rebuilt request has none of those changes, so the header fields in which
    /// `received` differs from the request as first built are set, or removed, on the rebuilt one. Everything
    /// else comes from the fresh build: a new body stream, new signatures or timestamps.
    ///
    /// - Parameters:
    ///   - received: The request as the caller received it for its first attempt.
    ///   - purpose: What the new attempt is for, such as `a retry`, for the error.
    /// - Returns: The rebuilt request.
    /// - Throws: ``SluiceError/Code/build`` with what building the request again threw.
    public func rebuild(keepingChangesIn received: URLRequest, for purpose: String) throws(SluiceError) -> URLRequest {
        var fresh: URLRequest
        do {
            fresh = try rebuild()
        } catch {
            throw SluiceError(
                .build,
                message: "cannot build the request again for \(purpose): \(SluiceError.describe(error))",
                underlyingError: error
            )
        }
        let before = request.allHTTPHeaderFields ?? [:]
        let after = received.allHTTPHeaderFields ?? [:]
        for (name, value) in after where request.value(forHTTPHeaderField: name) != value {
            fresh.setValue(value, forHTTPHeaderField: name)
        }
        for name in before.keys where received.value(forHTTPHeaderField: name) == nil {
            fresh.setValue(nil, forHTTPHeaderField: name)
        }
        return fresh
    }

    // MARK: - Attempts

    /// Counts a transport attempt and returns its number, counted from 1.
    ///
    /// A performer that sends the request more than once (a retry) calls it before each attempt.
    ///
    /// - Returns: The attempt's number.
    public func beginAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// The number of attempts begun with ``beginAttempt()``; 0 when no performer counts them, in which case the
    /// request's errors and events report 1.
    public var attempts: Int { state.withLock { $0.attempts } }

    /// Records why an attempt failed, for the error reported after the last one.
    ///
    /// - Parameter reason: The failure, as ``SluiceError/attemptFailures`` shows it.
    public func noteFailure(_ reason: String) {
        state.withLock { $0.failures.append(reason) }
    }

    /// Why each failed attempt failed, in order.
    public var failures: [String] { state.withLock { $0.failures } }

    // MARK: - Observers

    /// Registers an observer for the request's finish event, once.
    ///
    /// - Parameters:
    ///   - observer: The observer.
    ///   - id: Who registers it, so that a performer called once per attempt registers once.
    /// - Returns: `true` when it was registered now, `false` when `id` had registered already.
    public func register(_ observer: any RequestObserver, id: ObjectIdentifier) -> Bool {
        state.withLock { state in
            guard !state.observers.contains(where: { $0.id == id }) else { return false }
            state.observers.append((id, observer))
            return true
        }
    }

    /// The observers registered for this request.
    public var observers: [any RequestObserver] { state.withLock { $0.observers.map(\.observer) } }

    // MARK: - Credentials

    /// Notes a credential a performer sent with the request, such as an `Authorization` header's value, so that
    /// logs, fixtures and error messages hide it wherever it appears, in the response as well (see ``Redaction``).
    ///
    /// - Parameter credential: The credential, as it was sent.
    public func noteCredential(_ credential: String) {
        state.withLock { state in
            if !state.credentials.contains(credential) {
                state.credentials.append(credential)
            }
        }
    }

    /// The credentials noted with ``noteCredential(_:)``, in order.
    public var credentials: [String] { state.withLock { $0.credentials } }

    // MARK: - Warnings

    /// Notes something a performer must tell the user that did not fail the request, such as a TLS certificate it
    /// did not check, for the observers' finish event (``RequestEvent/warnings``); a warning already noted is not
    /// repeated.
    ///
    /// - Parameter warning: What to say, one line.
    public func noteWarning(_ warning: String) {
        state.withLock { state in
            if !state.warnings.contains(warning) {
                state.warnings.append(warning)
            }
        }
    }

    /// The warnings noted with ``noteWarning(_:)``, in order.
    public var warnings: [String] { state.withLock { $0.warnings } }
}

// The context is the scope the transports see: they report upload progress, note the credentials they add and
// warn through it.
extension RequestContext: RequestScope {}
