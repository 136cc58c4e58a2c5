/// What a stored response may be used for, given a request and a `now` (RFC 9111, 4; RFC 5861).
enum CacheLookup: Sendable, Equatable {
    /// Nothing stored matches: `uri-miss` when nothing is stored for the URL, `vary-miss` when no variant matches.
    case miss(String)
    /// A stored response that is fresh enough for the request: served as it is.
    case fresh(CacheEntry)
    /// A stale response that a directive allows to be served (its name is the reason); with
    /// `stale-while-revalidate`, a revalidation in the background follows.
    case stale(CacheEntry, reason: String, revalidate: Bool)
    /// A stored response that must be validated with the origin before it is used.
    case validate(CacheEntry)

    /// Chooses the stored response for `request` among the variants of its URL and says how it may be used.
    ///
    /// The variant chosen is the most recent one whose `Vary` fields match (4.1) those of `asSent`, the request as the
    /// performer below the cache would send it (``RequestPerformer/requestAsSent(_:)``), its cookies included; the
    /// directives are read from `request`. It is used without validation when
    /// it is fresh (4.2) and the request's `max-age` and `min-fresh` allow it, unless either side says `no-cache`
    /// (the request's `Pragma: no-cache` counts when it has no `Cache-Control`, 5.4); once stale, it is used only
    /// when `max-stale` (5.2.1.2) or `stale-while-revalidate` (RFC 5861, 3) allows it and neither `must-revalidate`
    /// nor `no-cache` forbid it (4.2.4).
    static func find(
        for request: URLRequest,
        sentAs asSent: URLRequest,
        among entries: [CacheEntry],
        at now: Date,
        heuristicLimit: TimeInterval
    ) -> CacheLookup {
        guard !entries.isEmpty else { return .miss("uri-miss") }
        let matching = entries.filter { $0.matches(asSent) }
        guard let entry = matching.max(by: { $0.dateValue < $1.dateValue }) else { return .miss("vary-miss") }
        var asked = CacheControl(request)
        if request.value(forHTTPHeaderField: "Cache-Control") == nil,
            request.value(forHTTPHeaderField: "Pragma")?.lowercased().contains("no-cache") == true
        {
            asked.noCache = true
        }
        let stored = entry.cacheControl
        guard !asked.noCache, !stored.noCache else { return .validate(entry) }
        let age = entry.currentAge(at: now)
        if asked.invalid.contains("max-age") || asked.maxAge.map({ age > TimeInterval($0) }) == true {
            return .validate(entry)
        }
        let remaining = entry.freshnessLifetime(heuristicLimit: heuristicLimit).seconds - age
        if remaining > 0 {
            if let minFresh = asked.minFresh, remaining < TimeInterval(minFresh) {
                return .validate(entry)
            }
            return .fresh(entry)
        }
        let staleness = -remaining
        guard !stored.mustRevalidate else { return .validate(entry) }
        if let maxStale = asked.maxStale, maxStale == Int.max || staleness <= TimeInterval(maxStale) {
            return .stale(entry, reason: "max-stale", revalidate: false)
        }
        if let window = stored.staleWhileRevalidate, staleness <= TimeInterval(window) {
            return .stale(entry, reason: "stale-while-revalidate", revalidate: true)
        }
        return .validate(entry)
    }

    /// Whether a stale `entry` may be served in place of an error, as `stale-if-error` in the response or the
    /// request allows (RFC 5861, 4), unless `must-revalidate` or `no-cache` forbid serving it stale (4.2.4).
    static func mayServeOnError(
        _ entry: CacheEntry,
        for request: URLRequest,
        at now: Date,
        heuristicLimit: TimeInterval
    )
        -> Bool
    {
        let stored = entry.cacheControl
        guard !stored.mustRevalidate, !stored.noCache else { return false }
        guard let window = stored.staleIfError ?? CacheControl(request).staleIfError else { return false }
        let staleness = -entry.remainingFreshness(at: now, heuristicLimit: heuristicLimit)
        return staleness <= TimeInterval(window)
    }
}
