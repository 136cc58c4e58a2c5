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
///
/// A streamed request (``stream(_:)``) follows the same rules: a 401 head is refreshed and replayed before any byte
/// of a body is handed out, and the 401's body is dropped, which ends its transfer.
public struct AuthenticatingPerformer: WrappingPerformer {
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
        guard carriesCredential(request) else {
            return try await base.perform(request)
        }
        return try await RequestContext.withContext(for: request) { context in
            try await authorize(request, in: context) { try await base.perform($0) }
        }
    }

    /// Streams a request with the credential; on a 401 head, refreshes it (once for all concurrent requests) and
    /// replays the request once, before any byte is handed out.
    ///
    /// The rules are those of ``perform(_:)``. The 401's body is dropped, which ends its transfer, before the refresh.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, with its body still arriving; a 401 after the replay is returned as it is.
    /// - Throws: What the refresh or the base performer throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        guard carriesCredential(request) else {
            return try await base.stream(request)
        }
        return try await RequestContext.withContext(forStreaming: request) { context in
            try await authorize(request, in: context) { try await base.stream($0) }
        }
    }

    /// Opens a WebSocket with the credential; when the server refuses the handshake with 401, refreshes it (once for
    /// all concurrent requests) and tries the handshake once more.
    ///
    /// Which handshakes carry the credential follows the rules of ``perform(_:)``. The credential is noted in the
    /// current request's context when there is one (through a client, always), so that logs and errors hide it.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket.
    /// - Throws: What the refresh or the base performer throws; a second 401 as the base performer throws it.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        guard carriesCredential(request) else {
            return try await base.webSocket(request, protocols: protocols, configuration: configuration)
        }
        let context = RequestContext.current
        let (credential, generation) = try await store.current()
        var authorized = request
        authorized.setValue(credential.authorization, forHTTPHeaderField: "Authorization")
        context?.noteCredential(credential.authorization)
        do {
            return try await base.webSocket(authorized, protocols: protocols, configuration: configuration)
        } catch let error as SluiceError where error.status == .unauthorized {
            let (fresh, _) = try await store.refreshed(after: generation)
            authorized.setValue(fresh.authorization, forHTTPHeaderField: "Authorization")
            context?.noteCredential(fresh.authorization)
            return try await base.webSocket(authorized, protocols: protocols, configuration: configuration)
        }
    }

    /// Whether the store's credential goes with a request: it is for a host the credential was issued for, and has
    /// no `Authorization` header of its own.
    private func carriesCredential(_ request: URLRequest) -> Bool {
        store.isIssued(for: request.url) && request.value(forHTTPHeaderField: "Authorization") == nil
    }

    /// Sends the request with the credential through `send`, of either form, and on 401 replays it once with a
    /// refreshed one.
    private func authorize<Response: ResponseHead>(
        _ request: URLRequest,
        in context: RequestContext,
        send: (URLRequest) async throws -> Response
    ) async throws -> Response {
        let (credential, generation) = try await store.current()
        var authorized = request
        authorized.setValue(credential.authorization, forHTTPHeaderField: "Authorization")
        context.noteCredential(credential.authorization)
        do {
            // The 401 is released with this block, before the refresh: a streamed one's transfer ends.
            let response = try await send(authorized)
            // The replay is built afresh, so that a streamed body is read again from its start; with no request to
            // build it from, a streamed body cannot be sent twice and the 401 is returned as it is.
            guard response.status == .unauthorized, context.canRebuild else { return response }
        }
        let (fresh, _) = try await store.refreshed(after: generation)
        var replay = try context.rebuild(keepingChangesIn: request, for: "a replay after 401")
        replay.setValue(fresh.authorization, forHTTPHeaderField: "Authorization")
        context.noteCredential(fresh.authorization)
        context.noteReplay("authentication")
        return try await send(replay)
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
