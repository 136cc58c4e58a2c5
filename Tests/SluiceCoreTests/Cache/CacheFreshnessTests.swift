import Foundation
import Testing

@testable import SluiceCore

/// RFC 9111, 4.2: freshness lifetime (4.2.1), heuristics (4.2.2) and age (4.2.3), computed at a given instant.
@Suite struct CacheFreshnessTests {
    typealias F = CacheFixtures

    /// 4.2.1: where the lifetime comes from, in order of precedence.
    @Test(
        arguments: [
            (["Cache-Control": "max-age=60", "Expires": F.httpDate(600)], 200, 60.0, CacheEntry.Lifetime.maxAge),
            (["Date": F.httpDate(0), "Expires": F.httpDate(600)], 200, 600, .expires),
            (["Date": F.httpDate(-100), "Expires": F.httpDate(600)], 200, 700, .expires),
            (["Expires": "0"], 200, 0, .none),
            (["Expires": "Thu, 01 Jan 1970 00:00:00 GMT"], 200, 0, .expires),
            (["Cache-Control": "max-age=ten", "Expires": F.httpDate(600)], 200, 0, .none),
            (["Date": F.httpDate(0), "Last-Modified": F.httpDate(-1000)], 200, 100, .heuristic),
            (["Date": F.httpDate(0), "Last-Modified": F.httpDate(-10_000_000)], 200, 86_400, .heuristic),
            (["Date": F.httpDate(0), "Last-Modified": F.httpDate(-1000)], 404, 100, .heuristic),
            (["Date": F.httpDate(0), "Last-Modified": F.httpDate(-1000)], 500, 0, .none),
            (["Cache-Control": "public", "Last-Modified": F.httpDate(-1000)], 500, 100, .heuristic),
            (["Date": F.httpDate(0), "Last-Modified": F.httpDate(1000)], 200, 0, .none),
            ([:], 200, 0, .none),
        ] as [([Header: String], Int, TimeInterval, CacheEntry.Lifetime)]
    )
    func findsTheLifetime(
        _ headers: [Header: String],
        _ status: Int,
        _ seconds: TimeInterval,
        _ source: CacheEntry.Lifetime
    ) {
        let entry = F.entry(HTTPHeaders(headers.map { .init(name: $0.key, value: $0.value) }), status: status)
        let lifetime = entry.freshnessLifetime(heuristicLimit: 86_400)
        #expect(lifetime.seconds == seconds)
        #expect(lifetime.source == source)
    }

    /// 4.2.3: the age calculation, with a response delay, a server clock behind or ahead, and `Age`.
    @Test(
        arguments: [
            // Date, Age, request delay, seconds resident, expected current_age
            (F.httpDate(0), nil, 0.0, 0.0, 0.0),
            (F.httpDate(0), nil, 0, 30, 30),
            (F.httpDate(-20), nil, 0, 0, 20),  // the apparent age
            (F.httpDate(20), nil, 0, 0, 0),  // a server clock ahead: never negative
            (F.httpDate(0), "50", 2, 10, 62),  // Age plus the response delay, then resident time
            (F.httpDate(-100), "50", 2, 0, 100),  // the larger of apparent and corrected age
            (F.httpDate(0), "50, 60", 0, 0, 50),  // the first member of a list
            (F.httpDate(0), "-5", 0, 0, 0),  // invalid: ignored
            (F.httpDate(0), "ten", 0, 0, 0),
            (F.httpDate(0), "99999999999999", 0, 0, 2_147_483_648),
            ("not a date", nil, 0, 5, 5),  // no valid Date: the response time stands in
        ] as [(String, String?, TimeInterval, TimeInterval, TimeInterval)]
    )
    func computesTheAge(
        _ date: String,
        _ age: String?,
        _ delay: TimeInterval,
        _ resident: TimeInterval,
        _ expected: TimeInterval
    ) {
        var headers: HTTPHeaders = [.date: date]
        if let age {
            headers[.age] = age
        }
        let entry = F.entry(headers, delay: delay)
        #expect(entry.currentAge(at: F.start.addingTimeInterval(resident)) == expected)
    }

    /// 4.2: fresh while the lifetime exceeds the age.
    @Test func isFreshUntilTheLifetimeIsReached() {
        let entry = F.entry([.date: F.httpDate(0), .cacheControl: "max-age=10"])
        #expect(entry.remainingFreshness(at: F.start.addingTimeInterval(9), heuristicLimit: 0) == 1)
        #expect(entry.remainingFreshness(at: F.start.addingTimeInterval(10), heuristicLimit: 0) == 0)
    }
}
