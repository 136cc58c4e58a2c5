/// The age and freshness of a stored response (RFC 9111, 4.2), computed from its header fields and the times it was
/// requested and received, against a `now` the caller passes: no clock is read here.
extension CacheEntry {
    /// The statuses a cache may give a heuristic freshness lifetime (RFC 9110, 15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The response's `Cache-Control` directives.
    var cacheControl: CacheControl { CacheControl(headers) }

    /// `date_value`: the response's `Date`, or, without a valid one, when it was received (RFC 9110, 6.6.1).
    var dateValue: Date {
        headers[.date].flatMap { HTTPDate.parse($0.trimmingCharacters(in: .whitespaces)) } ?? responseTime
    }

    /// `age_value`: the first member of `Age` when it is a non-negative integer, else 0 (5.1).
    var ageValue: TimeInterval {
        guard let first = headers[.age].flatMap({ FieldList.elements(of: $0).first }),
            !first.isEmpty, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return 0 }
        return TimeInterval(first.count > 10 ? CacheControl.largestDuration : Int(first) ?? 0)
    }

    /// `current_age` at `now`, in seconds (4.2.3).
    func currentAge(at now: Date) -> TimeInterval {
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = ageValue + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// How the freshness lifetime was found, for the outcome's detail.
    enum Lifetime: Sendable, Hashable {
        /// From `max-age`.
        case maxAge
        /// From `Expires` less `Date`.
        case expires
        /// A tenth of the time since `Last-Modified`, capped (4.2.2).
        case heuristic
        /// None given, none allowed, or invalid freshness information: the response is stale at once.
        case none
    }

    /// `freshness_lifetime` in seconds (4.2.1), and where it came from.
    ///
    /// A private cache uses `max-age`, then `Expires` minus `Date`, then, only when neither is present (and no
    /// invalid `max-age` is), a heuristic for a status that allows one or a response marked `public`. An `Expires`
    /// that is not one valid HTTP date, exactly as RFC 9110 writes it (such as `0` or a two-digit year), means already
    /// expired (5.3), and so do two `Expires` field lines (4.2.1).
    ///
    /// - Parameter heuristicLimit: The most seconds a heuristic lifetime may be.
    /// - Returns: The lifetime in seconds and its source.
    func freshnessLifetime(heuristicLimit: TimeInterval) -> (seconds: TimeInterval, source: Lifetime) {
        let control = cacheControl
        if let maxAge = control.maxAge {
            return (TimeInterval(maxAge), .maxAge)
        }
        if control.invalid.contains("max-age") {
            return (0, .none)
        }
        let expires = headers.values(for: .expires)
        if !expires.isEmpty {
            // With two field lines a cache may use the first or take the response as stale (4.2.1): which one the
            // origin meant cannot be told, so it is stale, even when the lines agree.
            guard expires.count == 1,
                let date = HTTPDate.parseExactly(
                    expires[0].trimmingCharacters(in: .whitespaces),
                    receivedAt: responseTime
                )
            else { return (0, .none) }
            return (max(0, date.timeIntervalSince(dateValue)), .expires)
        }
        guard CacheEntry.heuristicallyCacheable.contains(status.code) || control.isPublic,
            let lastModified = headers[.lastModified].flatMap({
                HTTPDate.parse($0.trimmingCharacters(in: .whitespaces))
            })
        else { return (0, .none) }
        let sinceModified = dateValue.timeIntervalSince(lastModified)
        guard sinceModified > 0 else { return (0, .none) }
        return (min(sinceModified / 10, heuristicLimit), .heuristic)
    }

    /// The seconds the response stays fresh past `now`; negative once stale, by how long it has been.
    func remainingFreshness(at now: Date, heuristicLimit: TimeInterval) -> TimeInterval {
        freshnessLifetime(heuristicLimit: heuristicLimit).seconds - currentAge(at: now)
    }
}
