/// A private HTTP cache (RFC 9111, with RFC 5861's `stale-while-revalidate` and `stale-if-error`): where responses
/// are stored and the settings a ``CachingPerformer`` applies.
///
/// Make one and put it in front of a performer with ``RequestPerformer/cached(in:)``:
///
/// ```swift
/// let cache = HTTPCache(store: .memory(limit: 20 << 20))
/// let client = APIClient(requestPerformer: SocketRequestPerformer().cached(in: cache))
/// ```
///
/// Copies share the store. Time is read from the clock passed in, so that tests move it rather than wait; the cache's
/// `now` is `startDate` plus the time elapsed on that clock since the cache was made.
public struct HTTPCache: Sendable {
    /// Where responses are stored.
    public let store: HTTPCache.Store
    /// The largest body stored, in bytes: a longer one passes through and is not stored.
    public let maximumEntrySize: Int
    /// The longest heuristic freshness lifetime given to a response without explicit freshness (4.2.2).
    public let heuristicFreshnessLimit: Duration
    private let elapsed: Stopwatch
    private let startDate: Date
    /// The background revalidations in flight, by key and variant, so that each runs once.
    let revalidating = Locked<Set<String>>([])
    /// The background revalidations in flight, counted, for a test to await them.
    package let backgroundRevalidations = Gauge()

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - store: Where responses are stored; in memory, 10 MiB, by default.
    ///   - maximumEntrySize: The largest body stored, in bytes; 5 MiB by default.
    ///   - heuristicFreshnessLimit: The longest heuristic freshness lifetime; a day by default.
    ///   - clock: The clock time is measured on; a `ContinuousClock` unless a test passes a `TestClock`.
    ///   - startDate: The date at which the clock's time starts counting; now by default.
    public init(
        store: HTTPCache.Store = .memory(),
        maximumEntrySize: Int = 5 << 20,
        heuristicFreshnessLimit: Duration = .seconds(86_400),
        clock: any Clock<Duration> = ContinuousClock(),
        startDate: Date = Date()
    ) {
        self.store = store
        self.maximumEntrySize = max(0, maximumEntrySize)
        self.heuristicFreshnessLimit = heuristicFreshnessLimit
        self.elapsed = Stopwatch(clock)
        self.startDate = startDate
    }

    /// The cache's current date.
    var now: Date {
        let elapsed = elapsed.read().components
        return startDate.addingTimeInterval(TimeInterval(elapsed.seconds) + TimeInterval(elapsed.attoseconds) / 1e18)
    }

    /// The heuristic limit in seconds.
    var heuristicLimit: TimeInterval {
        let parts = heuristicFreshnessLimit.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }

    /// Removes what is stored for a URL, every variant.
    ///
    /// - Parameter url: The URL.
    public func removeResponses(for url: URL) {
        guard let key = CacheEntry.key(for: url) else { return }
        store.storage.removeEntries(for: key)
    }
}

extension RequestPerformer {
    /// This performer behind a private HTTP cache.
    ///
    /// - Parameter cache: The cache, which may be shared by several performers.
    /// - Returns: The caching performer.
    public func cached(in cache: HTTPCache) -> CachingPerformer {
        CachingPerformer(base: self, cache: cache)
    }
}
