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

    /// 5.3 and RFC 9110, 5.6.7: `Expires` in each of the three forms of an HTTP date, names in any case (4.2).
    @Test(
        arguments: [
            ("Tue, 14 Nov 2023 22:23:20 GMT", 600.0),  // IMF-fixdate
            ("Tuesday, 14-Nov-23 22:23:20 GMT", 600),  // RFC 850
            ("Tue Nov 14 22:23:20 2023", 600),  // asctime
            ("Mon Aug  8 02:01:18 2050", 843_536_878),  // asctime, a day of one digit after a space
            ("TUE, 14 NOV 2023 22:23:20 gmt", 600),
            ("tuesday, 14-nov-23 22:23:20 Gmt", 600),
            ("Sun, 14 Nov 2023 22:23:20 GMT", 600),  // the weekday is not checked against the date
            ("Tue, 19 Jan 2038 14:14:08 GMT", 447_523_248),  // past 32 bits of seconds
            ("Sun, 21 Nov 2286 04:46:39 GMT", 8_300_039_599),
            ("Tuesday, 14-Nov-73 22:23:20 GMT", 1_577_923_800),  // 50 years ahead of 2023: 2073
            ("Wednesday, 14-Nov-74 22:23:20 GMT", 0),  // more than 50 years ahead: 1974, in the past
            (" Tue, 14 Nov 2023 22:23:20 GMT ", 600),  // the whitespace around a field value is not part of it
        ] as [(String, TimeInterval)]
    )
    func readsExpiresInEveryForm(_ expires: String, _ seconds: TimeInterval) {
        let entry = F.entry([.date: F.httpDate(0), .expires: expires])
        let lifetime = entry.freshnessLifetime(heuristicLimit: 86_400)
        #expect(lifetime.seconds == seconds)
        #expect(lifetime.source == .expires)
    }

    /// 5.3: an `Expires` that is not an HTTP date as RFC 9110 writes it makes the response stale at once, however
    /// close to one it is.
    @Test(arguments: [
        "0",
        "",
        "soon",
        "Thu, 18 Aug 2050 02:01:18 UTC",  // a zone other than GMT
        "Thu, 18 Aug 2050 02:01:18 AEST",
        "Thu, 18 Aug 2050 02:01:18 +0000",
        "Thu, 18 Aug 50 02:01:18 GMT",  // a two-digit year in IMF-fixdate
        "Thu 18 Aug 2050 02:01:18 GMT",  // no comma
        "Thu, 18  Aug  2050 02:01:18 GMT",  // two spaces
        "Thu,  18 Aug 2050 02:01:18 GMT",
        "Thu, 18-Aug-2050 02:01:18 GMT",  // dashes with a four-digit year
        "Thu, 18-Aug-50 02:01:18 GMT",  // RFC 850 with a short weekday
        "Thursday, 18 Aug 2050 02:01:18 GMT",  // IMF-fixdate with a long weekday
        "Thu, 18 Aug 2050 02.01.18 GMT",  // periods in the time
        "Thu, 18 Aug 2050 2:01:18 GMT",  // a one-digit hour
        "Thu, 18 Aug 2050 02:1:18 GMT",
        "Thu, 8 Aug 2050 02:01:18 GMT",  // a one-digit day
        "Thu, 18 August 2050 02:01:18 GMT",  // a long month
        "Thu, 18 Aug 2050 02:01:18",  // no zone
        "Thu, 18 Aug 2050 02:01:18 GMT, Thu, 18 Aug 2050 02:01:19 GMT",  // two dates on one line
        "Thu, 18 Aug 2050 02:01:18 GMTX",
        "Thu Aug 8 02:01:18 2050",  // asctime with one space before a one-digit day
        "Thu Aug  8 02:01:18 50",
        "Thu, 31 Feb 2050 02:01:18 GMT",  // no such day
        "Thu, 18 Aug 2050 24:00:00 GMT",
        "Thu, 18 Xyz 2050 02:01:18 GMT",
    ])
    func takesAnInvalidExpiresAsExpired(_ expires: String) {
        let entry = F.entry([.date: F.httpDate(0), .expires: expires])
        let lifetime = entry.freshnessLifetime(heuristicLimit: 86_400)
        #expect(lifetime.seconds == 0)
        #expect(lifetime.source == .none)
    }

    /// 4.2.1: two `Expires` field lines make the response stale, even when both are valid and agree.
    @Test(arguments: [F.httpDate(600), F.httpDate(1200)])
    func takesTwoExpiresLinesAsExpired(_ second: String) {
        let headers = HTTPHeaders([
            .init(.date, F.httpDate(0)), .init(.expires, F.httpDate(600)), .init(.expires, second),
        ])
        let lifetime = F.entry(headers).freshnessLifetime(heuristicLimit: 86_400)
        #expect(lifetime.seconds == 0)
        #expect(lifetime.source == .none)
    }

    /// `Date` is still read leniently, in the forms servers send that RFC 9110 does not write: only `Expires` must be
    /// exact.
    @Test func readsDateLeniently() {
        let entry = F.entry([.date: "Tue, 14-Nov-2023 22:11:40 GMT", .expires: F.httpDate(600)])
        #expect(entry.freshnessLifetime(heuristicLimit: 86_400).seconds == 700)
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
