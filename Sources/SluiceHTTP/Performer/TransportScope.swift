/// What a transport learns of the request it carries from the pipeline above it, and tells it back: where the
/// body's upload progress goes, which values it added (a stored cookie, a proxy's password) must be hidden, and what
/// it warns of.
///
/// The one hook from `SluiceTransport` up to `SluiceCore`, so that the transport never imports the pipeline. The
/// core's `RequestContext` is the scope of every request a client performs, bound with ``current``; a performer
/// called with no client around runs with none, and reports its upload, if any, to ``upload``.
package protocol RequestScope: AnyObject, Sendable {
    /// Receives the bytes of the request's body sent so far and, when known, the bytes in all; `nil` when no one
    /// asked.
    var uploadProgress: TransportScope.UploadReport? { get }

    /// Notes a value the transport sends that the request as built did not show, so that logs, fixtures and error
    /// messages hide it wherever it appears.
    ///
    /// - Parameter credential: The value.
    func noteCredential(_ credential: String)

    /// Notes something the user must hear of that did not fail the request, such as a certificate that was not
    /// checked, for the request's observers: the transport prints nothing itself.
    ///
    /// - Parameter warning: What to say, one line.
    func noteWarning(_ warning: String)

    /// Begins an attempt on the wire, letting the instrumentation write into the request's header fields; `nil`, and
    /// the request untouched, when no instrumentation listens.
    ///
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - redirectHop: 0 for the request itself, then the number of the redirect being followed.
    /// - Returns: The attempt to report to, or `nil`.
    func beginWireAttempt(_ request: inout URLRequest, redirectHop: Int) -> (any WireAttempt)?
}

/// The task locals through which a transport reaches the ``RequestScope`` of the request it carries.
package enum TransportScope {
    /// Receives the bytes of a body sent so far and, when known, the bytes in all.
    package typealias UploadReport = @Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void
    /// A handler, with the body's length when the request says.
    package typealias UploadWatch = (report: UploadReport, expected: Int64?)

    /// The scope of the request the current task performs, or `nil` outside any.
    @TaskLocal package static var current: (any RequestScope)?

    /// The handler of the upload the current task performs, as `Client.upload(_:)` binds it; a scope made inside
    /// takes it when it is made.
    @TaskLocal package static var upload: UploadReport?

    /// The handler the transports report the current request's body to: the scope's, or, for a client of its own
    /// that runs its performer with no scope, the one `Client.upload(_:)` bound.
    package static var uploadProgress: UploadReport? {
        current?.uploadProgress ?? upload
    }

    /// Where the transport reports the request as it sends it, to the cache above it; `nil` when no cache listens,
    /// and the transport then reports nothing.
    ///
    /// ``SentRequestReport/run(_:)`` binds it around a call to the performer below a cache.
    @TaskLocal package static var sentRequest: SentRequestReport?

    /// Notes a value the transport sends for the current request, so that it is hidden; nothing outside a scope.
    ///
    /// - Parameter credential: The value.
    package static func noteCredential(_ credential: String) {
        current?.noteCredential(credential)
    }

    /// Notes a warning for the current request's observers; nothing outside a scope.
    ///
    /// - Parameter warning: What to say, one line.
    package static func noteWarning(_ warning: String) {
        current?.noteWarning(warning)
    }
}

/// The request a transport sent, as it reports it to a cache above it, so that the cache stores a response under the
/// fields the server saw.
///
/// The transport reports the request it was given as ``RequestPerformer/requestAsSent(_:)`` makes it, at the moment it
/// sends it: the cache compares the fields a response varies on with those it computed itself before sending, and
/// stores nothing when they differ (a performer between them added one, or the cookies changed meanwhile). A report
/// inside another passes what it is told on to the outer one, so that a cache above a cache hears it too.
package final class SentRequestReport: Sendable {
    private let sent = Locked<URLRequest?>(nil)
    private let outer: SentRequestReport?

    private init(outer: SentRequestReport?) {
        self.outer = outer
    }

    /// Runs `operation` with a report of its own bound, and returns its result with the last request the transport
    /// reported while it ran, if any.
    ///
    /// - Parameter operation: The call to the performer below the cache.
    /// - Returns: Its result, and the request as sent, or `nil` when no transport reported one.
    /// - Throws: What `operation` throws.
    package static func run<Result: Sendable>(
        _ operation: () async throws -> Result
    ) async throws -> (result: Result, sent: URLRequest?) {
        let report = SentRequestReport(outer: TransportScope.sentRequest)
        let result = try await TransportScope.$sentRequest.withValue(report) { try await operation() }
        return (result, report.sent.withLock { $0 })
    }

    /// Notes the request as the transport sends it; the last note wins, so a retry below the cache reports its last
    /// attempt.
    ///
    /// - Parameter request: The request, with the fields the transport adds.
    package func note(_ request: URLRequest) {
        sent.withLock { $0 = request }
        outer?.note(request)
    }
}
