import Foundation
import TestSupport
import Testing

@testable import SluiceCore

/// RFC 9111, 5.2 and 1.2.2: reading `Cache-Control`, well-formed and hostile.
@Suite struct CacheControlTests {
    @Test(arguments: [
        ("max-age=60", 60),
        ("MAX-AGE=60", 60),
        ("max-age=\"60\"", 60),
        ("public, max-age=0060", 60),
        ("max-age=60, max-age=10", 60),
        ("max-age=99999999999999999999", CacheControl.largestDuration),
        ("max-age=2147483649", CacheControl.largestDuration),
        ("foo=\"a,b\", max-age=5", 5),
        ("max-age=5 , private", 5),
        ("max-age=5,private", 5),
    ])
    func readsMaxAge(_ value: String, _ seconds: Int) {
        #expect(CacheControl(fieldValues: [value]).maxAge == seconds)
    }

    @Test(arguments: [
        "max-age=ten", "max-age=-1", "max-age=", "max-age", "max-age=1.5", "max-age=\"\"", "max-age =60",
        "max-age= 60", "max-age=\"60", "max-age=60 s",
    ])
    func marksAnInvalidMaxAge(_ value: String) {
        let control = CacheControl(fieldValues: [value])
        #expect(control.maxAge == nil)
        #expect(control.invalid == ["max-age"])
    }

    @Test func readsEveryDirective() {
        let control = CacheControl(fieldValues: [
            "no-cache, no-store, no-transform, must-revalidate, must-understand, proxy-revalidate",
            "public, private=\"Set-Cookie\", immutable, s-maxage=7, stale-while-revalidate=8, stale-if-error=9",
            "only-if-cached, min-fresh=3, max-stale",
        ])
        let flags: [Bool] = [
            control.noCache, control.noStore, control.noTransform, control.mustRevalidate, control.mustUnderstand,
            control.proxyRevalidate, control.isPublic, control.isPrivate, control.immutable, control.onlyIfCached,
        ]
        #expect(flags.allSatisfy { $0 })
        #expect(control.sharedMaxAge == 7)
        #expect(control.staleWhileRevalidate == 8)
        #expect(control.staleIfError == 9)
        #expect(control.minFresh == 3)
        #expect(control.maxStale == Int.max)
    }

    @Test(arguments: ["", ",,,", "=60", "\u{0}\u{7F}\u{FF}no-cache", "a b c=d", "x-unknown=\"a, b\""])
    func skipsWhatItCannotRead(_ value: String) {
        var control = CacheControl(fieldValues: [value])
        control.invalid = []
        #expect(control == CacheControl(fieldValues: []))
    }

    @Test func honoursRestrictionsEvenMalformed() {
        let control = CacheControl(fieldValues: ["no-store garbage, no-cache =1, max-age = 60"])
        #expect(control.noStore && control.noCache)
        #expect(control.maxAge == nil)
        #expect(control.invalid == ["no-store", "no-cache", "max-age"])
    }

    @Test func neverCrashesOnRandomBytes() {
        var random = SplitMix64(seed: 9111)
        let alphabet = Array("max-age=,\" \t\\no-cachestale=0123456789\u{0}\u{FF}".utf8)
        for _ in 0..<2_000 {
            let length = Int(random.next() % 200)
            let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            let control = CacheControl(fieldValues: [String(decoding: bytes, as: UTF8.self)])
            #expect(control.maxAge.map { (0...CacheControl.largestDuration).contains($0) } ?? true)
        }
    }

    @Test func readsMaxStaleWithAnArgument() {
        #expect(CacheControl(fieldValues: ["max-stale=30"]).maxStale == 30)
    }

    @Test func staysBoundedOnHugeValues() {
        let huge = String(repeating: "x-unknown=\"\\\"\", ", count: 100_000) + "no-store"
        let control = CacheControl(fieldValues: [huge, "no-store"])
        #expect(!control.noStore)
        let many = (0..<1000).map { "d\($0)" }.joined(separator: ",") + ",no-store"
        #expect(!CacheControl(fieldValues: [many]).noStore)
    }

    @Test func readsEveryFieldLine() {
        let headers: HTTPHeaders = ["Cache-Control": "public", "cache-control": "max-age=3"]
        var both = headers
        both.add("no-cache", for: .cacheControl)
        let control = CacheControl(both)
        #expect(control.isPublic && control.maxAge == 3 && control.noCache)
    }
}
