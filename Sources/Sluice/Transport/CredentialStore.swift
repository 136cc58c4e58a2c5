/// Holds the credential for a service and refreshes it, once, for everyone who needs it.
///
/// ```swift
/// let tokens = CredentialStore(
///     credential: Credential(authorization: "Bearer \(savedToken)"),
///     hosts: ["api.example.com"]
/// ) { expired in
///     let token = try await refreshToken()
///     return Credential(authorization: "Bearer \(token)")
/// }
/// let client = APIClient(requestPerformer: NetworkRequestPerformer().authenticated(by: tokens))
/// ```
///
/// However many requests are refused with 401 at the same time, the store runs one refresh; every one of them
/// waits for it and is replayed once with the new credential. A refresh that fails fails all its waiters with its
/// error. A credential refused again after a refresh is not refreshed for that request a second time, so nothing
/// loops.
///
/// The credential is sent only to the hosts it was issued for.
public actor CredentialStore {
    /// The hosts the credential is sent to, compared case-insensitively.
    public nonisolated let hosts: Set<String>

    private var credential: Credential?
    private var generation = 0
    private var refreshing: Task<(Credential, Int), any Error>?
    private let refresh: @Sendable (Credential?) async throws -> Credential
    private var refreshCount = 0

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - credential: The credential to start with, or `nil` to refresh before the first request.
    ///   - hosts: The hosts the credential is sent to.
    ///   - refresh: Obtains a new credential, given the one that was refused.
    public init(
        credential: Credential?,
        hosts: Set<String>,
        refresh: @escaping @Sendable (Credential?) async throws -> Credential
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
    func current() async throws -> (Credential, Int) {
        if let refreshing {
            return try await refreshing.value
        }
        if let credential {
            return (credential, generation)
        }
        return try await refreshed(after: generation)
    }

    /// A credential newer than the given generation: the one a concurrent refresh produced, or a new one.
    func refreshed(after refusedGeneration: Int) async throws -> (Credential, Int) {
        if generation > refusedGeneration, let credential {
            return (credential, generation)
        }
        if let refreshing {
            return try await refreshing.value
        }
        let refused = credential
        let refresh = self.refresh
        let task = Task { () async throws -> (Credential, Int) in
            do {
                return self.install(try await refresh(refused))
            } catch {
                self.clear()
                throw error
            }
        }
        refreshing = task
        refreshCount += 1
        return try await task.value
    }

    private func install(_ fresh: Credential) -> (Credential, Int) {
        credential = fresh
        generation += 1
        refreshing = nil
        return (fresh, generation)
    }

    private func clear() {
        credential = nil
        refreshing = nil
    }
}

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

extension Credential: CustomStringConvertible {
    /// The scheme only, so that logging a credential never shows the secret: `Credential(Bearer ***)`.
    public var description: String {
        "Credential(\(authorization.split(separator: " ").first.map(String.init) ?? "") ***)"
    }
}
