import Foundation
import Testing

@testable import SluiceCore

/// RFC 9111, 3 (storing), 3.1 and 3.2 (header fields), 4.1 (Vary), 4.3.4 (validators), 4.4 (invalidation).
@Suite struct CacheRulesTests {
    typealias F = CacheFixtures

    /// Section 3: what may be stored, and the reason given when it may not.
    @Test(
        arguments: [
            (200, ["Cache-Control": "max-age=60"], [:], nil),
            (200, [:], [:], nil),  // heuristically cacheable
            (200, ["Cache-Control": "private, max-age=60"], [:], nil),  // a private cache stores private responses
            (200, ["Cache-Control": "no-cache"], [:], nil),  // stored, revalidated on every use
            (500, ["Cache-Control": "max-age=60"], [:], nil),
            (302, ["Expires": F.httpDate(60)], [:], nil),
            (200, ["Cache-Control": "max-age=60"], ["Authorization": "Bearer a"], nil),  // 3.5 binds shared caches only
            (500, [:], [:], "status 500 is not cacheable without explicit freshness"),
            (302, [:], [:], "status 302 is not cacheable without explicit freshness"),
            (206, ["Cache-Control": "max-age=60"], [:], "partial responses (206) are not stored"),
            (200, ["Cache-Control": "max-age=60, no-store"], [:], "the response says no-store"),
            (200, ["Cache-Control": "max-age=60"], ["Cache-Control": "no-store"], "the request says no-store"),
            (200, ["Cache-Control": "max-age=60", "Vary": "Accept, *"], [:], "Vary: * matches no later request"),
            // A stray quote does not hide the `*` after it: Vary lists tokens, split at every comma.
            (
                200, ["Cache-Control": "max-age=60", "Vary": "accept, foo\", *"], [:],
                "Vary: * matches no later request"
            ),
            (200, ["Cache-Control": "max-age=60, no-store, must-understand"], [:], nil),
            (
                299, ["Cache-Control": "max-age=60, no-store, must-understand"], [:],
                "must-understand with status 299, whose caching rules this cache does not know"
            ),
        ] as [(Int, [String: String], [String: String], String?)]
    )
    func decidesWhatIsStored(
        _ status: Int,
        _ response: [String: String],
        _ request: [String: String],
        _ reason: String?
    ) {
        let headers = HTTPHeaders(response.map { .init(name: Header($0.key), value: $0.value) })
        let decided = CacheRules.reasonNotStorable(
            request: F.request(request),
            status: HTTPStatus(code: status),
            headers: headers
        )
        #expect(decided == reason)
    }

    /// 3.1: connection-specific fields, and those `Connection` names, are not stored.
    @Test func dropsConnectionFields() {
        let headers: HTTPHeaders = [
            "Connection": "close, X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5", "Transfer-Encoding": "chunked",
            "ETag": "\"a\"", "Cache-Status": "Sluice; hit", "Proxy-Authenticate": "Basic",
        ]
        #expect(CacheRules.storedFields(of: headers).map(\.name.name) == ["ETag"])
    }

    /// 3.2: a 304's fields replace the stored ones, all values of a name at once; Content-Length is kept.
    @Test func updatesStoredFields() {
        var stored: HTTPHeaders = ["ETag": "\"a\"", "Cache-Control": "max-age=1", "Content-Length": "4", "X-A": "1"]
        stored.add("2", for: "X-A")
        var new: HTTPHeaders = ["Cache-Control": "max-age=60", "Content-Length": "0", "X-A": "3", "X-New": "n"]
        new.add("Connection", for: "Connection")
        let updated = CacheRules.updated(stored, with: new)
        #expect(updated[.cacheControl] == "max-age=60")
        #expect(updated[.contentLength] == "4")
        #expect(updated.values(for: "X-A") == ["3"])
        #expect(updated["X-New"] == "n")
        #expect(updated[.connection] == nil)
    }

    /// 4.1: a variant matches only the same values of the fields its Vary names; credentials are stored hashed.
    @Test func selectsByVary() throws {
        let request = F.request(["Accept-Language": "en,  fr", "Authorization": "Bearer secret"])
        let variant = try #require(CacheEntry.variant(of: request, varyingOn: ["Vary": "accept-language"]))
        var entry = F.entry([:])
        entry.variant = variant
        #expect(entry.matches(F.request(["Accept-Language": "en, fr", "Authorization": "Bearer secret"])))
        #expect(!entry.matches(F.request(["Accept-Language": "de", "Authorization": "Bearer secret"])))
        #expect(!entry.matches(F.request(["Accept-Language": "en, fr", "Authorization": "Bearer other"])))
        #expect(!entry.matches(F.request(["Accept-Language": "en, fr"])))
        #expect(!entry.variantID.contains("secret"))
    }

    /// 4.1: a Cookie's pairs are matched in any order, since a store hands its cookies out in none; its value is
    /// stored hashed.
    @Test func matchesCookiesInAnyOrder() throws {
        let request = F.request(["Cookie": "b=2; a=1"])
        let variant = try #require(CacheEntry.variant(of: request, varyingOn: ["Vary": "Cookie"]))
        var entry = F.entry([:])
        entry.variant = variant
        #expect(entry.matches(F.request(["Cookie": "a=1;b=2"])))
        #expect(!entry.matches(F.request(["Cookie": "a=1; b=3"])))
        #expect(!entry.matches(F.request(["Cookie": "a=1"])))
        #expect(!entry.matches(F.request()))
        #expect(!entry.variantID.contains("a=1"))
        let other = F.request(["Cookie": "a=1; b=3"])
        #expect(CacheEntry.firstDifference(between: request, and: other, varyingOn: ["Vary": "Cookie"]) == "cookie")
        #expect(CacheEntry.firstDifference(between: request, and: other, varyingOn: [:]) == nil)
    }

    /// 4.3.4 and RFC 9110 8.8.3.2: which stored response a 304 describes.
    @Test(arguments: [
        (["ETag": "\"a\""], ["ETag": "\"a\""], true),
        (["ETag": "\"a\""], ["ETag": "\"b\""], false),
        (["ETag": "W/\"a\""], ["ETag": "\"a\""], true),  // a weak 304 tag: weak comparison
        (["ETag": "\"a\""], ["ETag": "W/\"a\""], false),  // a strong 304 tag needs a strong stored one
        (["Last-Modified": F.httpDate(0)], ["Last-Modified": F.httpDate(0)], true),
        (["Last-Modified": F.httpDate(1)], ["Last-Modified": F.httpDate(0)], false),
        ([:], [:], true),
        ([:], ["ETag": "\"a\""], false),
    ])
    func matchesValidators(_ new: [String: String], _ stored: [String: String], _ matches: Bool) {
        let entry = F.entry(HTTPHeaders(stored.map { .init(name: Header($0.key), value: $0.value) }))
        let headers = HTTPHeaders(new.map { .init(name: Header($0.key), value: $0.value) })
        #expect(CacheRules.validators(of: headers, match: entry) == matches)
    }

    /// 4.4: the target URI and same-origin Location and Content-Location.
    @Test func invalidatesSameOriginLocations() throws {
        let target = try #require(URL(string: "http://origin.test/items#top"))
        let request = F.request(method: "POST", url: target)
        let keys = CacheRules.invalidatedKeys(
            by: request,
            response: ["Location": "/items/7", "Content-Location": "http://elsewhere.test/items/7"]
        )
        #expect(keys == ["http://origin.test/items", "http://origin.test/items/7"])
    }
}
