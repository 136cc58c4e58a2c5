import Foundation
import SluiceTesting
import Testing

@testable import SluiceCore

/// The caching performer against an origin in memory, on a test clock: RFC 9111 section by section, and RFC 5861.
@Suite struct CachingPerformerTests {
    typealias F = CacheFixtures

    /// 4.2: a fresh response is served without the origin, with its Age; once stale, it is validated.
    @Test func servesFreshThenValidates() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60", "Date": F.httpDate(0), "ETag": "\"v1\""]))
        let first = try await bench.get()
        #expect(first.cacheOutcome == HTTPCache.Outcome(.miss))
        bench.advance(59)
        let second = try await bench.get()
        #expect(second.cacheOutcome == HTTPCache.Outcome(.hit))
        #expect(second.headers[.age] == "59")
        #expect(second.body == Data("body".utf8))
        #expect(bench.origin.count == 1)
        bench.advance(1)
        _ = try await bench.get()
        #expect(bench.origin.count == 2)
        #expect(bench.origin.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
    }

    /// 4.3.1, 4.3.3, 4.3.4 and 3.2: a 304 refreshes the stored response, whose body is served with the new fields.
    @Test func mergesA304() async throws {
        let origin = FakeOrigin { request, index in
            if index == 0 {
                return HTTPResponse(
                    status: .ok,
                    headers: [
                        "Cache-Control": "max-age=10", "ETag": "\"v1\"", "Last-Modified": F.httpDate(-3600),
                        "X-Version": "1",
                    ],
                    body: Data("payload".utf8)
                )
            }
            #expect(request.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
            #expect(request.value(forHTTPHeaderField: "If-Modified-Since") == F.httpDate(-3600))
            return HTTPResponse(
                status: .notModified,
                headers: ["Cache-Control": "max-age=100", "ETag": "\"v1\"", "X-Version": "2"]
            )
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        bench.advance(20)
        let revalidated = try await bench.get()
        #expect(revalidated.status == .ok)
        #expect(revalidated.cacheOutcome == HTTPCache.Outcome(.revalidated))
        #expect(revalidated.body == Data("payload".utf8))
        #expect(revalidated.headers["X-Version"] == "2")
        bench.advance(90)
        #expect(try await bench.get().cacheOutcome == HTTPCache.Outcome(.hit))
        #expect(origin.count == 2)
    }

    /// 4.3.4: a 304 whose validator does not match what is stored leads to an unconditional request.
    @Test func refetchesWhenA304DoesNotMatch() async throws {
        let origin = FakeOrigin { request, index in
            switch index {
            case 0:
                HTTPResponse(
                    status: .ok,
                    headers: ["Cache-Control": "max-age=1", "ETag": "\"a\""],
                    body: Data("a".utf8)
                )
            case 1: HTTPResponse(status: .notModified, headers: ["ETag": "\"b\""])
            default:
                HTTPResponse(
                    status: .ok,
                    headers: ["ETag": "\"b\"", "Cache-Control": "max-age=9"],
                    body: Data("b".utf8)
                )
            }
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        bench.advance(5)
        let answer = try await bench.get()
        #expect(answer.body == Data("b".utf8))
        #expect(origin.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
    }

    /// A 304 without validators, to the cache's own conditional request, refreshes the entry it was made from.
    @Test func takesA304WithoutValidatorsForTheEntryAskedAbout() async throws {
        let origin = FakeOrigin { request, index in
            index == 0
                ? HTTPResponse(
                    status: .ok,
                    headers: ["ETag": "\"a\"", "Cache-Control": "no-cache"],
                    body: Data("a".utf8)
                )
                : HTTPResponse(status: .notModified)
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        let answer = try await bench.get()
        #expect(answer.cacheOutcome?.kind == .revalidated)
        #expect(answer.body == Data("a".utf8))
        #expect(origin.count == 2)
    }

    /// 5.2.1: the request directives.
    @Test(
        arguments: [
            // seconds after storing, request Cache-Control, expected outcome, origin reached
            (10, "max-age=5", HTTPCache.Outcome.Kind.revalidated, true),
            (10, "max-age=50", .hit, false),
            (10, "min-fresh=55", .revalidated, true),
            (10, "min-fresh=40", .hit, false),
            (10, "no-cache", .revalidated, true),
            (70, "max-stale=20", .staleHit, false),
            (70, "max-stale", .staleHit, false),
            (90, "max-stale=20", .revalidated, true),
            (10, "max-age=ten", .revalidated, true),
        ] as [(Int64, String, HTTPCache.Outcome.Kind, Bool)]
    )
    func honoursRequestDirectives(
        _ after: Int64,
        _ directives: String,
        _ kind: HTTPCache.Outcome.Kind,
        _ reached: Bool
    )
        async throws
    {
        let bench = CacheBench(revalidatingOrigin("max-age=60"))
        _ = try await bench.get()
        bench.advance(after)
        let answer = try await bench.get(["Cache-Control": directives])
        #expect(answer.cacheOutcome?.kind == kind)
        #expect(bench.origin.count == (reached ? 2 : 1))
    }

    /// 5.4: Pragma: no-cache counts only without Cache-Control.
    @Test func readsPragmaWithoutCacheControl() async throws {
        let bench = CacheBench(revalidatingOrigin("max-age=60"))
        _ = try await bench.get()
        #expect(try await bench.get(["Pragma": "no-cache"]).cacheOutcome?.kind == .revalidated)
        #expect(try await bench.get(["Pragma": "no-cache", "Cache-Control": "max-age=600"]).cacheOutcome?.kind == .hit)
    }

    /// 5.2.1.7: only-if-cached answers 504 when nothing stored may answer.
    @Test func answersOnlyIfCachedWith504() async throws {
        let bench = CacheBench(revalidatingOrigin("max-age=60"))
        let none = try await bench.get(["Cache-Control": "only-if-cached"])
        #expect(none.status.code == 504)
        #expect(
            none.cacheOutcome
                == HTTPCache.Outcome(.unavailable, detail: "only-if-cached, and nothing stored may answer")
        )
        #expect(bench.origin.count == 0)
        _ = try await bench.get()
        #expect(try await bench.get(["Cache-Control": "only-if-cached"]).cacheOutcome?.kind == .hit)
        bench.advance(61)
        #expect(try await bench.get(["Cache-Control": "only-if-cached"]).status.code == 504)
        #expect(try await bench.get(["Cache-Control": "only-if-cached, max-stale"]).cacheOutcome?.kind == .staleHit)
        #expect(bench.origin.count == 1)
    }

    /// 5.2.2: response directives that forbid serving without validation, or stale.
    @Test(
        arguments: [
            ("no-cache, max-age=60", 10, ["max-stale": ""], HTTPCache.Outcome.Kind.revalidated),
            ("must-revalidate, max-age=60", 70, ["max-stale": ""], .revalidated),
            ("max-age=60", 70, ["max-stale": ""], .staleHit),
        ] as [(String, Int64, [String: String], HTTPCache.Outcome.Kind)]
    )
    func honoursResponseDirectives(
        _ stored: String,
        _ after: Int64,
        _ asked: [String: String],
        _ kind: HTTPCache.Outcome.Kind
    )
        async throws
    {
        let bench = CacheBench(revalidatingOrigin(stored))
        _ = try await bench.get()
        bench.advance(after)
        let directives = asked.keys.joined(separator: ", ")
        #expect(try await bench.get(["Cache-Control": directives]).cacheOutcome?.kind == kind)
    }

    /// 3 and 5.2.2.5: what is not stored says why.
    @Test func reportsWhyNothingWasStored() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "no-store"]))
        let answer = try await bench.get()
        #expect(answer.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "the response says no-store"))
        _ = try await bench.get()
        #expect(bench.origin.count == 2)
    }

    /// 4.1: Vary selects a variant; a different value is a miss, and both variants are kept.
    @Test func keepsVariants() async throws {
        let origin = FakeOrigin { request, _ in
            HTTPResponse(
                status: .ok,
                headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                body: Data((request.value(forHTTPHeaderField: "Accept-Language") ?? "none").utf8)
            )
        }
        let bench = CacheBench(origin)
        _ = try await bench.get(["Accept-Language": "en"])
        _ = try await bench.get(["Accept-Language": "fr"])
        #expect(try await bench.get(["Accept-Language": "en"]).body == Data("en".utf8))
        #expect(try await bench.get(["Accept-Language": "fr"]).body == Data("fr".utf8))
        #expect(origin.count == 2)
    }

    /// 4.4: a successful unsafe request invalidates its target and same-origin Location; a failed one does not.
    @Test func invalidatesOnUnsafeMethods() async throws {
        let other = F.address("/other")
        let origin = FakeOrigin { request, _ in
            switch request.httpMethod {
            case "POST": HTTPResponse(status: .created, headers: ["Location": "/other"])
            case "DELETE": HTTPResponse(status: HTTPStatus(code: 500))
            default: HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=60"])
            }
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        _ = try await bench.get(url: other)
        let deleted = try await bench.get(method: "DELETE")
        #expect(deleted.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "DELETE responses are not stored"))
        #expect(try await bench.get().cacheOutcome?.kind == .hit)
        _ = try await bench.get(method: "POST")
        #expect(try await bench.get().cacheOutcome?.kind == .miss)
        #expect(try await bench.get(url: other).cacheOutcome?.kind == .miss)
    }

    /// 4.3.5 and RFC 9110 9.3.2: a HEAD is answered from a stored GET, and a HEAD response updates one.
    @Test func updatesAStoredGETFromHEAD() async throws {
        let origin = FakeOrigin { request, _ in
            HTTPResponse(
                status: .ok,
                headers: [
                    "Cache-Control": request.httpMethod == "HEAD" ? "max-age=600" : "max-age=60", "ETag": "\"a\"",
                    "Content-Length": "4",
                ],
                body: request.httpMethod == "HEAD" ? Data() : Data("body".utf8)
            )
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        let head = try await bench.get(method: "HEAD")
        #expect(head.cacheOutcome?.kind == .hit)
        #expect(head.body.isEmpty)
        bench.advance(70)
        let updated = try await bench.get(method: "HEAD")
        #expect(updated.cacheOutcome?.kind == .notStored)
        let get = try await bench.get()
        #expect(get.cacheOutcome?.kind == .hit)
        #expect(get.headers[.cacheControl] == "max-age=600")
        #expect(origin.count == 2)
    }

    /// 4.3.2: the client's own conditional request is answered 304 from a fresh stored response.
    @Test func answersTheClientsConditionals() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60", "ETag": "W/\"a\""]))
        _ = try await bench.get()
        let matched = try await bench.get(["If-None-Match": "\"x\", \"a\""])
        #expect(matched.status == .notModified)
        #expect(matched.body.isEmpty)
        #expect(try await bench.get(["If-None-Match": "\"b\""]).status == .ok)
        #expect(bench.origin.count == 1)
    }

    /// An entity tag may hold a comma (RFC 9110, 8.8.3): a list in `If-None-Match` is split outside its quotes.
    @Test func matchesAnEntityTagHoldingACommaInAList() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60", "ETag": "\"a,b\""]))
        _ = try await bench.get()
        #expect(try await bench.get(["If-None-Match": "\"x\", \"a,b\""]).status == .notModified)
        #expect(try await bench.get(["If-None-Match": "\"a\", \"b\""]).status == .ok)
        #expect(bench.origin.count == 1)
    }

    /// A backslash is an entity tag's own byte, not an escape (RFC 9110, 8.8.3): `"a\"` ends at its second quote.
    @Test func readsABackslashInAnEntityTagAsPartOfIt() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60", "ETag": "\"b\""]))
        _ = try await bench.get()
        #expect(try await bench.get(["If-None-Match": #""a\", "b""#]).status == .notModified)
        #expect(bench.origin.count == 1)
    }

    /// RFC 5861, 3: a stale response within stale-while-revalidate is served, and revalidated once in the background.
    @Test func revalidatesOnceInTheBackground() async throws {
        let bench = CacheBench(revalidatingOrigin("max-age=10, stale-while-revalidate=30"))
        _ = try await bench.get()
        bench.advance(20)
        let stale = try await bench.get()
        #expect(stale.cacheOutcome == HTTPCache.Outcome(.staleHit, detail: "stale-while-revalidate"))
        try await bench.cache.backgroundRevalidations.wait { $0 == 0 }
        #expect(bench.origin.count == 2)
        #expect(try await bench.get().cacheOutcome?.kind == .hit)
        bench.advance(60)
        #expect(try await bench.get().cacheOutcome?.kind == .revalidated)
    }

    /// RFC 5861, 4: stale-if-error serves a stored response when the origin fails, within its window only.
    @Test(
        arguments: [
            ("max-age=10, stale-if-error=60", 30, true),
            ("max-age=10, stale-if-error=60", 80, false),
            ("max-age=10, stale-if-error=60, must-revalidate", 30, false),
            ("max-age=10", 30, false),
        ] as [(String, Int64, Bool)]
    )
    func servesStaleOnError(_ directives: String, _ after: Int64, _ served: Bool) async throws {
        for failure in ["status", "throw"] {
            let origin = FakeOrigin { _, index in
                if index == 0 {
                    return HTTPResponse(status: .ok, headers: ["Cache-Control": directives], body: Data("ok".utf8))
                }
                if failure == "throw" {
                    throw URLError(.cannotConnectToHost)
                }
                return HTTPResponse(status: HTTPStatus(code: 503))
            }
            let bench = CacheBench(origin)
            _ = try await bench.get()
            bench.advance(after)
            if served {
                let answer = try await bench.get()
                #expect(answer.cacheOutcome == HTTPCache.Outcome(.staleHit, detail: "stale-if-error"))
                #expect(answer.body == Data("ok".utf8))
            } else if failure == "throw" {
                await #expect(throws: URLError.self) { try await bench.get() }
            } else {
                #expect(try await bench.get().status.code == 503)
            }
        }
    }

    /// A stale-if-error in the request allows the same.
    @Test func readsStaleIfErrorInTheRequest() async throws {
        let origin = FakeOrigin { _, index in
            index == 0
                ? HTTPResponse(status: .ok, headers: ["Cache-Control": "max-age=10"], body: Data("ok".utf8))
                : HTTPResponse(status: HTTPStatus(code: 500))
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        bench.advance(20)
        #expect(try await bench.get(["Cache-Control": "stale-if-error=60"]).cacheOutcome?.kind == .staleHit)
    }

    /// An origin's own Cache-Status, even one naming this cache, does not hide what the cache did.
    @Test func reportsItsOwnOutcomeOverTheOrigins() async throws {
        let bench = CacheBench(
            FakeOrigin(["Cache-Control": "no-store", "Cache-Status": "Sluice; hit; detail=\"hit\", CDN; hit"])
        )
        let answer = try await bench.get()
        #expect(answer.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "the response says no-store"))
        #expect(answer.headers.values(for: "Cache-Status").count == 2)
    }

    /// A URL's responses can be removed, every variant.
    @Test func removesAURLsResponses() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60"]))
        _ = try await bench.get()
        bench.cache.removeResponses(for: F.url)
        #expect(try await bench.get().cacheOutcome?.kind == .miss)
        bench.cache.store.removeAll()
        #expect(try await bench.get().cacheOutcome?.kind == .miss)
        #expect(bench.origin.count == 3)
    }

    /// A Range request and a 206 pass through, unstored.
    @Test func passesRangesThrough() async throws {
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60"]))
        let ranged = try await bench.get(["Range": "bytes=0-1"])
        #expect(ranged.cacheOutcome == HTTPCache.Outcome(.notStored, detail: "a Range request is passed through"))
        #expect(try await bench.get().cacheOutcome?.kind == .miss)
    }

    /// An origin that answers a first GET with `directives` and an ETag, and 304 to every conditional request after.
    private func revalidatingOrigin(_ directives: String) -> FakeOrigin {
        FakeOrigin { request, _ in
            if request.value(forHTTPHeaderField: "If-None-Match") != nil {
                return HTTPResponse(status: .notModified, headers: ["Cache-Control": directives, "ETag": "\"v\""])
            }
            return HTTPResponse(
                status: .ok,
                headers: ["Cache-Control": directives, "ETag": "\"v\""],
                body: Data("v".utf8)
            )
        }
    }
}

/// Streamed bodies through the cache, and the outcome in a client's response, its events and its log.
@Suite struct CachingStreamTests {
    typealias F = CacheFixtures

    /// A streamed origin: the body in chunks of `chunkSize` bytes.
    private static func streamingOrigin(
        _ body: Data,
        chunk: Int,
        directives: String = "max-age=3600"
    ) -> StubPerformer {
        StubPerformer(
            streaming: MockClient.StreamScript(
                headers: ["Cache-Control": directives],
                parts: stride(from: 0, to: body.count, by: chunk).map {
                    .bytes(body.subdata(in: $0..<min($0 + chunk, body.count)))
                }
            )
        )
    }

    @Test func storesAStreamedBodyAsItPasses() async throws {
        let body = Data((0..<10_000).map { UInt8($0 % 251) })
        let performer = Self.streamingOrigin(body, chunk: 1000).cached(in: HTTPCache())
        let first = try await performer.stream(F.request())
        #expect(first.cacheOutcome?.kind == .miss)
        var received = Data()
        for try await chunk in first.body {
            #expect(chunk.count <= 1000)
            received.append(chunk)
        }
        #expect(received == body)
        let second = try await performer.stream(F.request())
        #expect(second.cacheOutcome?.kind == .hit)
        #expect(try await second.body.collect(upTo: .max) == body)
    }

    @Test func dropsABodyPastTheLimitOrLeftEarly() async throws {
        let body = Data(repeating: 7, count: 5000)
        let small = Self.streamingOrigin(body, chunk: 1000).cached(in: HTTPCache(maximumEntrySize: 4000))
        #expect(try await small.stream(F.request()).body.collect(upTo: .max) == body)
        #expect(try await small.stream(F.request()).cacheOutcome?.kind == .notStored)
        // Without a declared length, the limit is found as the body passes: it is handed on whole, and not stored.
        let undeclared = UndeclaredLengthOrigin(chunks: Array(repeating: Data(repeating: 1, count: 1000), count: 5))
            .cached(in: HTTPCache(maximumEntrySize: 4000))
        #expect(try await undeclared.stream(F.request()).body.collect(upTo: .max).count == 5000)
        #expect(try await undeclared.stream(F.request()).cacheOutcome?.kind == .miss)
        #expect(try await undeclared.stream(F.request()).cacheOutcome?.kind == .miss)

        let early = Self.streamingOrigin(body, chunk: 1000).cached(in: HTTPCache())
        for try await _ in try await early.stream(F.request()).body { break }
        #expect(try await early.stream(F.request()).cacheOutcome?.kind == .miss)
    }

    @Test func showsTheOutcomeToTheClientAndInTheLog() async throws {
        let lines = Locked<[String]>([])
        let origin = FakeOrigin(["Cache-Control": "max-age=3600"], body: "{}")
        let performer = origin.performer.cached(in: HTTPCache()).logged { line in lines.withLock { $0.append(line) } }
        let client = APIClient(requestPerformer: performer)
        let request = DataRequest(url: F.url)
        #expect(try await client.response(for: request).cacheOutcome == HTTPCache.Outcome(.miss))
        #expect(try await client.response(for: request).cacheOutcome == HTTPCache.Outcome(.hit))
        let finished = lines.withLock { $0 }.filter { $0.hasPrefix("←") }
        #expect(finished.count == 2)
        #expect(finished.last?.hasSuffix(", 1 attempt, cache: hit") == true)
    }
}

/// An origin whose streamed body declares no length.
private struct UndeclaredLengthOrigin: RequestPerformer {
    let chunks: [Data]

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: .max)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let (body, continuation) = AsyncStream<Data>.makeStream()
        for chunk in chunks {
            continuation.yield(chunk)
        }
        continuation.finish()
        return HTTPResponse.Streamed(status: .ok, headers: ["Cache-Control": "max-age=60"], body: HTTPBody(body))
    }
}

/// A request for raw bytes.
private struct DataRequest: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

/// A HEAD answered stale under stale-while-revalidate is revalidated in the background without storing the HEAD
/// response in place of the GET it was answered from.
@Suite struct CachingHeadRevalidationTests {
    @Test func keepsTheStoredGETWhenAHEADRevalidates() async throws {
        let origin = FakeOrigin { request, _ in
            HTTPResponse(
                status: .ok,
                headers: ["Cache-Control": "max-age=10, stale-while-revalidate=60"],
                body: request.httpMethod == "HEAD" ? Data() : Data("get".utf8)
            )
        }
        let bench = CacheBench(origin)
        _ = try await bench.get()
        bench.advance(20)
        #expect(try await bench.get(method: "HEAD").cacheOutcome?.kind == .staleHit)
        try await bench.cache.backgroundRevalidations.wait { $0 == 0 }
        #expect(origin.requests.last?.httpMethod == "HEAD")
        #expect(try await bench.get(["Cache-Control": "max-stale"]).body == Data("get".utf8))
    }
}
