// A template for timing your own request's response stages: copy this folder into your package's `Benchmarks/`,
// replace the request, its model and the body with yours, and run `swift package benchmark`.
import Benchmark
import Foundation
import Sluice

// Your request and its model, as your app declares them.
struct ListUsers: Request {
    typealias ResponseObject = [User]

    func build() throws -> URLRequest {
        URLRequest(url: URL(fileURLWithPath: "/users"))
    }
}

struct User: Decodable, Sendable {
    var id: Int
    var name: String
    var email: String
    var isActive: Bool
    var tags: [String]
}

/// The body to measure.
///
/// Use a response your service really sends, recorded to a file beside this one and read with
/// `Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("users.json"))`.
/// The template makes one in code, so that it runs as it is.
let body = Data(
    ("["
        + (0..<500).map { index in
            #"{"id":\#(index),"name":"User \#(index)","email":"user\#(index)@example.com","#
                + #""isActive":\#(index % 3 != 0),"tags":["swift","server"]}"#
        }.joined(separator: ",") + "]").utf8
)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        maxDuration: .seconds(2)
    )
    stageBenchmarks("ListUsers", request: ListUsers(), body: body) { data in
        try JSONDecoder().decode([User].self, from: data)
    }
}

/// Registers one benchmark per response stage of `request` on `body`, then all the stages together as the client
/// runs them, then Foundation's decoder on the same bytes.
///
/// Each stage is timed on the output of the one before, computed once, so that its figures are its own.
func stageBenchmarks<R: Request>(
    _ name: String,
    request: R,
    body: Data,
    deserializer: any Deserializer = JSONDeserializer(),
    foundation: @escaping @Sendable (Data) throws -> Any
) {
    // The stages' inputs, computed once: the deserialized body, then the parser's representation of it.
    let deserializer = request.deserializer ?? deserializer
    guard let object = try? deserializer.deserialize(body),
        let representation = try? R.ResponseParser.parse(object)
    else {
        fatalError("\(name): the body does not deserialize and parse")
    }
    // A non-Sendable representation is handed to the closures through a box that is only ever read.
    let input = UncheckedBox((object, representation))
    Benchmark("\(name):1 deserialize") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try deserializer.deserialize(body))
        }
    }
    Benchmark("\(name):2 ResponseParser.parse") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try R.ResponseParser.parse(input.value.0))
        }
    }
    Benchmark("\(name):3 Request.parse") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try request.parse(input.value.1))
        }
    }
    Benchmark("\(name):all stages, responseObject(from:)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try request.responseObject(from: body, deserializer: deserializer))
        }
    }
    Benchmark("\(name):Foundation JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try foundation(body))
        }
    }
}

/// A value the benchmarks only read, handed to their `Sendable` closures.
///
/// `@unchecked Sendable`: it is written once, before any benchmark runs, and never again.
private final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
