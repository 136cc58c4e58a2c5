/// A performer that sends a ``CredentialStore``'s credential with every request to the hosts it was issued for,
/// and on 401 refreshes it once and replays the request once.
///
/// ```swift
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().authenticated(by: tokens))
/// ```
///
/// Each credential sent is noted in the request's context (``RequestContext/noteCredential(_:)``), so that logs,
/// fixtures and error messages hide it wherever it appears, also in a response that echoes it.
///
/// Requests to other hosts are sent untouched, and so are requests that carry an `Authorization` header of their
/// own (a sign-in endpoint sending Basic credentials, say): the store neither replaces nor refreshes it. A redirect
/// to another host drops the `Authorization` header when the base performer is a ``NetworkRequestPerformer`` with
/// its own session, which follows redirects itself; with a session of yours, its delegate decides (see
/// ``NetworkRequestPerformer/init(session:maximumBodySize:)``).
public struct AuthenticatingPerformer: RequestPerformer {
    /// The performer that sends the requests.
    public let base: any RequestPerformer
    /// The credential and its refresh.
    public let store: CredentialStore

    /// Creates an authenticating performer.
    ///
    /// - Parameters:
    ///   - base: The performer that sends the requests.
    ///   - store: The credential and its refresh.
    public init(base: any RequestPerformer, store: CredentialStore) {
        self.base = base
        self.store = store
    }

    /// Sends a request with the credential; on 401, refreshes it (once for all concurrent requests) and replays the
    /// request once.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response; a 401 after the replay is returned as it is.
    /// - Throws: What the refresh or the base performer throws.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        guard store.isIssued(for: request.url), request.value(forHTTPHeaderField: "Authorization") == nil else {
            return try await base.perform(request)
        }
        return try await RequestContext.withContext(for: request) { context in
            let (credential, generation) = try await store.current()
            var authorized = request
            authorized.setValue(credential.authorization, forHTTPHeaderField: "Authorization")
            context.noteCredential(credential.authorization)
            let response = try await base.perform(authorized)
            // The replay is built afresh, so that a streamed body is read again from its start; with no request to
            // build it from, a streamed body cannot be sent twice and the 401 is returned as it is.
            guard response.status == .unauthorized, context.canRebuild else { return response }
            let (fresh, _) = try await store.refreshed(after: generation)
            var replay = try context.rebuild(keepingChangesIn: request, for: "a replay after 401")
            replay.setValue(fresh.authorization, forHTTPHeaderField: "Authorization")
            context.noteCredential(fresh.authorization)
            return try await base.perform(replay)
        }
    }
}

extension RequestPerformer {
    /// This performer, authenticating requests with a credential store.
    ///
    /// - Parameter store: The credential and its refresh.
    /// - Returns: The authenticating performer.
    public func authenticated(by store: CredentialStore) -> AuthenticatingPerformer {
        AuthenticatingPerformer(base: self, store: store)
    }
}
