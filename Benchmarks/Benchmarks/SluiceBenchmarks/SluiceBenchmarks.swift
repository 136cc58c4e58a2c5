import Benchmark
import Foundation
import Sluice

/// Sluice's parse stages beside Foundation's, on the same bytes, in the same run.
///
/// For each payload: Sluice's deserializer alone and the whole decode to models through Sluice's pipeline, beside
/// Foundation's `JSONSerialization` and `JSONDecoder`. Then the client's own cost, with a stub performer.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        maxDuration: .seconds(3),
        maxIterations: 2_000
    )

    // Operations of a microsecond or so: timed in nanoseconds, a thousand to a sample. A sample's allocations may
    // include a few of the concurrency runtime's own (task allocator slabs, for the awaiting benchmarks), so the
    // thresholds allow 20 in a thousand operations either way.
    let fine = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 200,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: 20])]
    )

    for payload in BenchmarkPayload.all {
        let configuration = payload.data.count < 10_000 ? fine : Benchmark.defaultConfiguration
        Benchmark("\(payload.name):Sluice-deserialize", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try JSONDeserializer().deserialize(payload.data))
            }
        }
        Benchmark("\(payload.name):Foundation-JSONSerialization", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try JSONSerialization.jsonObject(with: payload.data))
            }
        }
        Benchmark("\(payload.name):Sluice-decode", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try payload.sluiceDecode())
            }
        }
        Benchmark("\(payload.name):Foundation-JSONDecoder", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try payload.foundationDecode())
            }
        }
    }

    let order = BenchmarkPayload.order
    let stub = StubBodyPerformer(body: order.data)
    let client = APIClient(requestPerformer: stub)
    let request = DecodeRequest<Order>(decoder: JSONDocumentDecoder(dateDecodingStrategy: .secondsSince1970))
    Benchmark("pipeline_1kb:Request.build", configuration: fine) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try request.build())
        }
    }
    Benchmark("pipeline_1kb:Request.responseObject", configuration: fine) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try request.responseObject(from: order.data))
        }
    }
    Benchmark("pipeline_1kb:APIClient.perform", configuration: fine) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await client.perform(request))
        }
    }
    // The client with no response stages to run: a request whose response object is `Void`, answered with no body.
    // What it takes beyond `Request.build` is the client's own cost, measured directly rather than as a difference.
    let emptyClient = APIClient(requestPerformer: StubBodyPerformer(body: Data()))
    let ping = PingRequest()
    Benchmark("pipeline_empty:APIClient.perform", configuration: fine) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await emptyClient.perform(ping))
        }
    }
    streamingBenchmarks()
    cacheBenchmarks()
}

/// A request with no response body to decode.
struct PingRequest: Request {
    typealias ResponseObject = Void
    let url = URL(fileURLWithPath: "/benchmark")

    func build() throws -> URLRequest {
        URLRequest(url: url)
    }
}

/// A request that decodes its response with a given decoder, as a service's requests do.
struct DecodeRequest<Model: Decodable>: Request {
    typealias ResponseObject = Model
    var decoder: JSONDocumentDecoder
    static var url: URL { URL(fileURLWithPath: "/benchmark") }
    let url = DecodeRequest.url

    func build() throws -> URLRequest {
        URLRequest(url: url)
    }

    func parse(_ json: JSON) throws -> Model {
        try decoder.decode(Model.self, from: json)
    }
}

/// A performer that answers every request with the same body, at once.
struct StubBodyPerformer: RequestPerformer {
    let body: Data

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        HTTPResponse(status: .ok, body: body)
    }
}

/// A payload and the two ways of decoding it into its models.
struct BenchmarkPayload: Sendable {
    let name: String
    let data: Data
    let sluiceDecode: @Sendable () throws -> Any
    let foundationDecode: @Sendable () throws -> Any

    static func make<Model: Decodable & Sendable>(
        _ name: String,
        _ data: Data,
        _ model: Model.Type,
        sluice: JSONDocumentDecoder = JSONDocumentDecoder(),
        foundation: JSONDecoder = JSONDecoder()
    ) -> BenchmarkPayload {
        // Each decoder is configured once and reused, as a service's code does.
        let request = DecodeRequest<Model>(decoder: sluice)
        return BenchmarkPayload(
            name: name,
            data: data,
            sluiceDecode: { try request.responseObject(from: data) },
            foundationDecode: { try foundation.decode(Model.self, from: data) }
        )
    }

    /// The 1 KB order, which the pipeline benchmarks also use.
    static let order = make(
        "order_1kb",
        Payloads.order,
        Order.self,
        sluice: JSONDocumentDecoder(dateDecodingStrategy: .secondsSince1970),
        foundation: {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }()
    )

    /// The generated payloads, then the real corpora decoded into the same models (with no strategies).
    static let all: [BenchmarkPayload] = [
        make("twitter", Payloads.twitter, SearchResponse.self),
        make("citm_catalog", Payloads.catalog, Catalog.self),
        make("canada", Payloads.canada, FeatureCollection.self),
        make(
            "rest_list",
            Payloads.restList,
            UserList.self,
            sluice: JSONDocumentDecoder(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase),
            foundation: {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                return decoder
            }()
        ),
        make("rest_list_plain", Payloads.restList, PlainUserList.self),
        order,
        make("real_twitter", RealCorpus.twitter, SearchResponse.self),
        make("real_citm_catalog", RealCorpus.catalog, Catalog.self),
        make("real_canada", RealCorpus.canada, FeatureCollection.self),
    ]
}
