import Benchmark
import Foundation
import Sluice

/// The HTTP cache: a hit from memory and from disk on the 1 KB order, a fresh hit beside a revalidated one on the
/// REST list, and a miss through the cache beside the same call without it.
///
/// The origin is a performer in memory, so these measure the cache's own work; a revalidation against a real server
/// adds its round trip. Named `cache_*`, outside the allocation thresholds CI checks.
func cacheBenchmarks() {
    let order = BenchmarkPayload.order.data
    let list = Payloads.restList
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )
    let request = URLRequest(url: URL(fileURLWithPath: "/benchmark/cached"))

    let memory = CachedOrigin(body: order, directives: "max-age=3600").performer.cached(in: HTTPCache())
    Benchmark("cache_order_1kb:memory-hit", configuration: configuration) { benchmark in
        _ = try await memory.perform(request)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await memory.perform(request))
        }
    }

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bench-\(UUID().uuidString)")
    Benchmark("cache_order_1kb:disk-hit", configuration: configuration) { benchmark in
        let disk = CachedOrigin(body: order, directives: "max-age=3600").performer
            .cached(in: HTTPCache(store: try .disk(at: directory)))
        _ = try await disk.perform(request)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await disk.perform(request))
        }
        benchmark.stopMeasurement()
        try? FileManager.default.removeItem(at: directory)
    }

    let fresh = CachedOrigin(body: list, directives: "max-age=3600").performer.cached(in: HTTPCache())
    Benchmark("cache_rest_list:fresh-hit", configuration: configuration) { benchmark in
        _ = try await fresh.perform(request)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await fresh.perform(request))
        }
    }

    let revalidated = CachedOrigin(body: list, directives: "no-cache").performer.cached(in: HTTPCache())
    Benchmark("cache_rest_list:revalidated", configuration: configuration) { benchmark in
        _ = try await revalidated.perform(request)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await revalidated.perform(request))
        }
    }

    // A miss on a new URL each time, stored (and evicted as the store fills), beside the origin alone.
    let urls = (0..<1_000).map { URLRequest(url: URL(fileURLWithPath: "/benchmark/item/\($0)")) }
    let origin = CachedOrigin(body: order, directives: "max-age=3600").performer
    let missing = origin.cached(in: HTTPCache(store: .memory(limit: 256 << 10)))
    Benchmark("cache_order_1kb:miss", configuration: configuration) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try await missing.perform(urls[index % urls.count]))
        }
    }
    Benchmark("cache_order_1kb:no-cache", configuration: configuration) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try await origin.perform(urls[index % urls.count]))
        }
    }
}

/// An origin in memory: every response has the body, an `ETag` and the given `Cache-Control`; a request that names the
/// `ETag` in `If-None-Match` gets `304`.
struct CachedOrigin {
    let body: Data
    let directives: String

    var performer: OriginPerformer {
        OriginPerformer(
            full: HTTPResponse(status: .ok, headers: ["Cache-Control": directives, "ETag": "\"v1\""], body: body),
            notModified: HTTPResponse(status: .notModified, headers: ["Cache-Control": directives, "ETag": "\"v1\""])
        )
    }
}

/// The performer of a ``CachedOrigin``.
struct OriginPerformer: RequestPerformer {
    let full: HTTPResponse
    let notModified: HTTPResponse

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        request.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"" ? notModified : full
    }
}
