import Foundation
import SluiceTesting

@testable import SluiceCore

/// The dates, entries and origin the cache tests share.
enum CacheFixtures {
    /// The instant the tests' clocks start at: 2023-11-14 22:13:20 UTC.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static let url = address("/resource")

    /// A URL on the tests' origin, `http://origin.test`.
    static func address(_ path: String) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "origin.test"
        components.path = path
        return components.url ?? URL(fileURLWithPath: path)
    }

    /// An IMF-fixdate `offset` seconds from ``start``.
    static func httpDate(_ offset: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: start.addingTimeInterval(offset))
    }

    /// An entry received at ``start`` (requested `delay` seconds before), with these fields.
    static func entry(_ headers: HTTPHeaders, status: Int = 200, delay: TimeInterval = 0) -> CacheEntry {
        CacheEntry(
            key: url.absoluteString,
            variant: [],
            status: HTTPStatus(code: status),
            headers: headers,
            url: url,
            requestTime: start.addingTimeInterval(-delay),
            responseTime: start,
            bodySize: 0
        )
    }

    static func request(_ headers: [String: String] = [:], method: String = "GET", url: URL = url) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}

/// An origin server in memory: answers with a closure of the request and the number of requests before it, and
/// records every request it received.
final class FakeOrigin: Sendable {
    private let received = Locked<[URLRequest]>([])
    private let respond: @Sendable (URLRequest, Int) throws -> HTTPResponse

    init(_ respond: @escaping @Sendable (URLRequest, Int) throws -> HTTPResponse) {
        self.respond = respond
    }

    /// An origin that always answers 200 with these fields and body.
    convenience init(_ headers: HTTPHeaders, body: String = "body") {
        self.init { _, _ in HTTPResponse(status: .ok, headers: headers, body: Data(body.utf8)) }
    }

    var requests: [URLRequest] { received.withLock { $0 } }
    var count: Int { received.withLock { $0.count } }

    var performer: StubPerformer {
        StubPerformer { request in
            let index = self.received.withLock { received in
                received.append(request)
                return received.count - 1
            }
            return try self.respond(request, index)
        }
    }
}

/// A cache on a test clock starting at ``CacheFixtures/start``.
struct CacheBench {
    let clock = TestClock()
    let cache: HTTPCache
    let origin: FakeOrigin
    let performer: CachingPerformer

    init(_ origin: FakeOrigin, store: HTTPCache.Store = .memory(), maximumEntrySize: Int = 5 << 20) {
        self.origin = origin
        cache = HTTPCache(
            store: store,
            maximumEntrySize: maximumEntrySize,
            clock: clock,
            startDate: CacheFixtures.start
        )
        performer = origin.performer.cached(in: cache)
    }

    func get(
        _ headers: [String: String] = [:],
        method: String = "GET",
        url: URL = CacheFixtures.url
    ) async throws
        -> HTTPResponse
    {
        try await performer.perform(CacheFixtures.request(headers, method: method, url: url))
    }

    func advance(_ seconds: Int64) {
        clock.advance(by: .seconds(seconds))
    }
}
