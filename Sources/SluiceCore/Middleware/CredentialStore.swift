/// Holds the credential for a service and refreshes it, once, for everyone who needs it.
///
/// ```swift
/// let tokens = CredentialStore(
///     credential: CredentialStore.Credential(authorization: "Bearer \(savedToken)"),
///     hosts: ["api.example.com"]
/// ) { expired in
///     let token = try await refreshToken()
///     return CredentialStore.Credential(authorization: "Bearer \(token)")
/// }
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().authenticated(by: tokens))
/// ```
///
/// However many requests are refused with 401 at the same time, the store runs one refresh; every one of them
/// waits for it and is replayed once with the new credential. A refresh that fails fails all its waiters with its
/// error, and so every request refused with the same credential, even one whose 401 arrives after the refresh
/// ended; the next new request tries a refresh again. A credential refused again after a refresh is not refreshed for that request a second time, so nothing
/// loops.
///
/// The credential is sent only to the hosts it was issued for.
public actor CredentialStore {
    /// The hosts the credential is sent to, compared case-insensitively.
    public nonisolated let hosts: Set<String>

    private var credential: CredentialStore.Credential?
    private var generation = 0
    private var refreshing: Task<(CredentialStore.Credential, Int), any Error>?
    /// Why the last refresh failed, for requests refused with the credential it was meant to replace.
    private var lastFailure: (any Error)?
    private let refresh: @Sendable (CredentialStore.Credential?) async throws -> CredentialStore.Credential
    private var refreshCount = 0

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - credential: The credential to start with, or `nil` to refresh before the first request.
    ///   - hosts: The hosts the credential is sent to.
    ///   - refresh: Obtains a new credential, given the one that was refused.
    public init(
        credential: CredentialStore.Credential?,
        hosts: Set<String>,
        refresh: @escaping @Sendable (CredentialStore.Credential?) async throws -> CredentialStore.Credential
    ) {
        self.credential = credential
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.refresh = refresh
    }

    /// The number of refreshes run so far.
    public var refreshes: Int { refreshCount }

    /// Whether a request to a URL may carry the credential.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: Whether its host is one the credential was issued for.
    public nonisolated func isIssued(for url: URL?) -> Bool {
        guard let host = url?.host?.lowercased() else { return false }
        return hosts.contains(host)
    }

    /// The current credential and its generation, refreshing first when there is none.
    func current() async throws -> (CredentialStore.Credential, Int) {
        if let refreshing {
            return try await refreshing.value
        }
        if let credential {
            return (credential, generation)
        }
        return try await refreshed(after: generation)
    }

    /// A credential newer than the given generation: the one a concurrent refresh produced, or a new one.
    func refreshed(after refusedGeneration: Int) async throws -> (CredentialStore.Credential, Int) {
        if generation > refusedGeneration {
            // A refresh ended since this request's credential was sent: share its outcome, good or bad.
            if let credential {
                return (credential, generation)
            }
            if let lastFailure {
                throw lastFailure
            }
        }
        if let refreshing {
            return try await refreshing.value
        }
        let refused = credential
        let refresh = self.refresh
        // The refresh is shared by every refused request, so it runs outside the context of the one that started it:
        // a performer it sends its own request through must not count that request's attempts or rebuild it.
        let task = Task { () async throws -> (CredentialStore.Credential, Int) in
            do {
                let fresh = try await RequestContext.withoutCurrent { try await refresh(refused) }
                return self.install(fresh)
            } catch {
                self.fail(error)
                throw error
            }
        }
        refreshing = task
        refreshCount += 1
        return try await task.value
    }

    private func install(_ fresh: CredentialStore.Credential) -> (CredentialStore.Credential, Int) {
        credential = fresh
        lastFailure = nil
        generation += 1
        refreshing = nil
        return (fresh, generation)
    }

    /// Ends a failed refresh: requests refused with the replaced credential fail with its error, and the next new
    /// request starts a fresh attempt.
    private func fail(_ error: any Error) {
        credential = nil
        lastFailure = error
        generation += 1
        refreshing = nil
    }
}

extension CredentialStore {
    /// A credential: the value of the `Authorization` header it is sent as.
    public struct Credential: Sendable, Hashable {
        /// The `Authorization` header value, such as `Bearer abc123`.
        public var authorization: String

        /// Creates a credential.
        ///
        /// - Parameter authorization: The `Authorization` header value.
        public init(authorization: String) {
            self.authorization = authorization
        }
    }
}

extension CredentialStore.Credential: CustomStringConvertible {
    /// The scheme only, so that logging a credential never shows the secret: `Credential(Bearer ***)`.
    public var description: String {
        "Credential(\(authorization.split(separator: " ").first.map(String.init) ?? "") ***)"
    }
}
