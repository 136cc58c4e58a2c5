/// What a client knows about the request it is performing, shared with the performers it calls through a task
/// local: how to build the request again, how many attempts were made and why they failed, and which observers
/// want the request's events.
///
/// ``APIClient`` sets it for each request. Performer decorators read it: a retry rebuilds the request for each
/// attempt and counts attempts, an observing performer registers its observer, whose finish event the client sends
/// when the pipeline ends. Without a client around it (a performer called directly), there is no context and the
/// decorators work on the request they were given.
///
/// Made for every request, so kept small: the request itself is held for rebuilding (no closure), and the state
/// that decorators share sits behind one lock.
final class RequestContext: Sendable {
    @TaskLocal static var current: RequestContext?

    /// The request as the client built it, before any performer changed it.
    let built: URLRequest
    /// The request, to build it again.
    private let request: any Request
    /// The request's number in this process, counted from 1.
    let id: UInt64

    private struct State {
        var attempts = 0
        var failures: [String] = []
        var observers: [(id: ObjectIdentifier, observer: any RequestObserver)] = []
    }

    private let state = Locked(State())
    private static let counter = Locked<UInt64>(0)

    init(built: URLRequest, request: some Request) {
        self.built = built
        self.request = request
        self.id = RequestContext.counter.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// Builds the request again, as for a new attempt.
    func rebuild() throws -> URLRequest {
        try request.build()
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
    /// - Throws: ``SluiceError/Code/build`` with what the request's `build()` threw.
    func rebuild(keepingChangesIn received: URLRequest, for purpose: String) throws(SluiceError) -> URLRequest {
        var fresh: URLRequest
        do {
            fresh = try rebuild()
        } catch {
            throw SluiceError(
                .build,
                message: "cannot build the request again for \(purpose): \(error)",
                underlyingError: error
            )
        }
        let before = built.allHTTPHeaderFields ?? [:]
        let after = received.allHTTPHeaderFields ?? [:]
        for (name, value) in after where built.value(forHTTPHeaderField: name) != value {
            fresh.setValue(value, forHTTPHeaderField: name)
        }
        for name in before.keys where received.value(forHTTPHeaderField: name) == nil {
            fresh.setValue(nil, forHTTPHeaderField: name)
        }
        return fresh
    }

    /// Counts a transport attempt and returns its number, counted from 1.
    func beginAttempt() -> Int {
        state.withLock { state in
            state.attempts += 1
            return state.attempts
        }
    }

    /// The number of transport attempts made so far; at least 1 once the transport stage has started.
    var attempts: Int { state.withLock { max($0.attempts, 1) } }

    /// Records why an attempt failed, for the error reported after the last one.
    func noteFailure(_ reason: String) {
        state.withLock { $0.failures.append(reason) }
    }

    /// Why each failed attempt failed, in order.
    var failures: [String] { state.withLock { $0.failures } }

    /// Registers an observer for the request's finish event; returns `false` if it was registered already (an
    /// observing performer inside a retry is called once per attempt).
    func register(_ observer: any RequestObserver, id: ObjectIdentifier) -> Bool {
        state.withLock { state in
            guard !state.observers.contains(where: { $0.id == id }) else { return false }
            state.observers.append((id, observer))
            return true
        }
    }

    /// The observers registered for this request.
    var observers: [any RequestObserver] { state.withLock { $0.observers.map(\.observer) } }
}
