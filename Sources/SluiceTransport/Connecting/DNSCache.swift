/// The addresses a connector resolved, kept per host and port for a short time, with the lookups of a name shared by
/// everyone who asks for it while it is under way.
///
/// `getaddrinfo` says nothing of a record's time to live, so an answer is kept for a fixed ``Settings/lifetime``; a
/// failed answer is not kept. Each connector, so each performer, has a cache of its own: two performers never share
/// answers, whatever their settings.
final class DNSCache: Sendable {
    /// How long answers are kept, and how many.
    struct Settings: Sendable {
        /// How long an answer is used; zero to keep none (lookups under way are still shared).
        var lifetime: Duration
        /// The most hosts kept; the answer that expires first makes room for a new one.
        var maximumHosts: Int
    }

    /// What resolves a host's addresses: `getaddrinfo` off the loop (``SocketAddress/resolve(host:port:)``), or a
    /// test's table.
    typealias LookUp = @Sendable (_ host: String, _ port: Int) async throws -> [SocketAddress]

    /// Where an answer came from.
    enum Source: Equatable {
        /// The host is an address: nothing was looked up.
        case literal
        /// A lookup this caller started or shared.
        case lookup
        /// The cache, without a lookup.
        case cache
    }

    /// A host's addresses and where they came from.
    struct Answer {
        var addresses: [SocketAddress]
        var source: Source
    }

    private struct Key: Hashable {
        var host: String
        var port: Int
    }

    private struct Entry {
        var addresses: [SocketAddress]
        /// When the entry expires, on ``stopwatch``.
        var expiry: Duration
    }

    /// A kept answer, or the lookup to wait for.
    private enum Found {
        case kept([SocketAddress])
        case underWay(Task<[SocketAddress], any Error>)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var lookups: [Key: Task<[SocketAddress], any Error>] = [:]
    }

    private let settings: Settings
    private let lookUp: LookUp
    private let stopwatch: Stopwatch
    private let state = Locked(State())
    /// The callers waiting for a lookup under way, theirs or one they share: a test waits for them all to wait.
    let waitingCallers = Gauge()

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - settings: How long answers are kept, and how many.
    ///   - clock: What their lifetime is measured on.
    ///   - lookUp: What resolves a host.
    init(settings: Settings, clock: any Clock<Duration>, lookUp: @escaping LookUp) {
        self.settings = settings
        self.lookUp = lookUp
        stopwatch = Stopwatch(clock)
    }

    /// The addresses of a host: from the cache while its answer is fresh, else from a lookup, shared with whoever
    /// asks for the same host and port until it ends.
    ///
    /// - Parameters:
    ///   - host: The host name, or an address (which is its own answer).
    ///   - port: The port the addresses carry.
    /// - Returns: At least one address, and where it came from.
    /// - Throws: What the lookup threw; nothing is kept then.
    func resolve(host: String, port: Int) async throws -> Answer {
        if let address = SocketAddress.numeric(host: host, port: port) {
            return Answer(addresses: [address], source: .literal)
        }
        let key = Key(host: host.lowercased(), port: port)
        let now = stopwatch.read()
        let found = state.withLock { state -> Found in
            if let entry = state.entries[key] {
                if entry.expiry > now {
                    return .kept(entry.addresses)
                }
                state.entries[key] = nil
            }
            if let lookup = state.lookups[key] {
                return .underWay(lookup)
            }
            let lookup = Task { try await self.finishLookUp(key) }
            state.lookups[key] = lookup
            return .underWay(lookup)
        }
        switch found {
        case .kept(let addresses):
            return Answer(addresses: addresses, source: .cache)
        case .underWay(let lookup):
            waitingCallers.add(1)
            defer { waitingCallers.add(-1) }
            return Answer(addresses: try await lookup.value, source: .lookup)
        }
    }

    /// Forgets a host's answer, after every one of its addresses failed: the next ``resolve(host:port:)`` looks it up.
    func evict(host: String, port: Int) {
        state.withLock { $0.entries[Key(host: host.lowercased(), port: port)] = nil }
    }

    /// Looks a host up, then keeps its answer and ends the lookup, so that the next caller finds the answer.
    private func finishLookUp(_ key: Key) async throws -> [SocketAddress] {
        let result: Result<[SocketAddress], any Error>
        do {
            result = .success(try await lookUp(key.host, key.port))
        } catch {
            result = .failure(error)
        }
        let expiry = stopwatch.read() + settings.lifetime
        state.withLock { state in
            state.lookups[key] = nil
            guard case .success(let addresses) = result, settings.lifetime > .zero, settings.maximumHosts > 0 else {
                return
            }
            if state.entries.count >= settings.maximumHosts, state.entries[key] == nil {
                let now = stopwatch.read()
                state.entries = state.entries.filter { $0.value.expiry > now }
                if state.entries.count >= settings.maximumHosts,
                    let soonest = state.entries.min(by: { $0.value.expiry < $1.value.expiry })?.key
                {
                    state.entries[soonest] = nil
                }
            }
            state.entries[key] = Entry(addresses: addresses, expiry: expiry)
        }
        return try result.get()
    }
}
