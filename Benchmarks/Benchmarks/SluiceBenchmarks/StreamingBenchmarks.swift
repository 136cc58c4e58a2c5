import Benchmark
import EventSourcePeer
import Foundation
import Sluice

/// The typed streams beside the usual alternatives, on bodies generated here and cut into 16 KiB chunks, as a
/// network delivers them.
///
/// - `sse_100k`: 100,000 server-sent events of mixed sizes, read by `Client.events` and by
///   `mattt/EventSource` 1.1.1's `AsyncServerSentEventsSequence` (its parser, fed the same chunks byte by byte, as
///   `URLSession.AsyncBytes` feeds it; see `EventSourcePeer`).
/// - `jsonl_100k`: 100,000 JSON Lines records, decoded by `Client.jsonLines` and by splitting the whole body
///   at line feeds and calling `JSONDecoder` on each line.
///
/// Sluice's streams are read through an `APIClient` whose performer streams the chunks, so they include the client's
/// status check and stream set-up. One iteration reads the whole body; events or records per second are the
/// throughput times 100,000.
func streamingBenchmarks() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 20
    )

    let events = StreamingPayloads.events
    Benchmark("sse_100k:Client.events", configuration: configuration) { benchmark in
        let client = APIClient(requestPerformer: ChunkedPerformer(body: events, contentType: "text/event-stream"))
        for _ in benchmark.scaledIterations {
            var count = 0
            for try await event in try await client.events(StreamRequest(), reconnecting: nil) {
                count &+= event.data.utf8.count
            }
            blackHole(count)
        }
    }

    Benchmark("sse_100k:mattt-EventSource", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var count = 0
            for try await event in ChunkedBytes(events).events {
                count &+= event.data.utf8.count
            }
            blackHole(count)
        }
    }

    let records = StreamingPayloads.records
    Benchmark("jsonl_100k:Client.jsonLines", configuration: configuration) { benchmark in
        let client = APIClient(requestPerformer: ChunkedPerformer(body: records, contentType: "application/x-ndjson"))
        for _ in benchmark.scaledIterations {
            var count = 0
            for try await record in try await client.jsonLines(StreamRequest(), of: LogRecord.self) {
                count &+= record.id
            }
            blackHole(count)
        }
    }
    Benchmark("jsonl_100k:split-JSONDecoder", configuration: configuration) { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            var count = 0
            for line in records.split(separator: UInt8(ascii: "\n")) {
                count &+= try decoder.decode(LogRecord.self, from: Data(line)).id
            }
            blackHole(count)
        }
    }
}

/// One record of the JSON Lines body: a structured log line.
struct LogRecord: Codable, Sendable {
    let id: Int
    let level: String
    let message: String
    let service: String
    let durationMs: Double
    let tags: [String]
    let ok: Bool
}

enum StreamingPayloads {
    /// 100,000 events: a third with a type, most with an ID, one to three data lines of 1 to 600 bytes, an
    /// occasional comment and retry, line ends mixed LF and CRLF.
    static let events: Data = {
        var random = SplitMix64(seed: 0x55E)
        var text = ""
        text.reserveCapacity(24 << 20)
        for index in 0..<100_000 {
            let end = random.below(4) == 0 ? "\r\n" : "\n"
            if random.below(50) == 0 {
                text += ": keep-alive" + end
            }
            if random.below(3) == 0 {
                text += "event: " + random.word() + end
            }
            if random.below(4) != 0 {
                text += "id: \(index)" + end
            }
            if random.below(500) == 0 {
                text += "retry: \(1000 + random.below(5000))" + end
            }
            for _ in 0...random.below(3) {
                let size = [1, 8, 40, 120, 600][random.below(5)]
                text += "data: " + random.text(words: max(1, size / 6), japanese: random.below(8) == 0) + end
            }
            text += end
        }
        return Data(text.utf8)
    }()

    /// 100,000 log records, one to a line.
    static let records: Data = {
        var random = SplitMix64(seed: 0x150)
        let encoder = JSONEncoder()
        var body = Data()
        for index in 0..<100_000 {
            let record = LogRecord(
                id: index,
                level: ["debug", "info", "warning", "error"][random.below(4)],
                message: random.text(words: 3 + random.below(12), japanese: random.below(10) == 0),
                service: random.word(),
                durationMs: Double(random.below(100_000)) / 100,
                tags: (0..<random.below(4)).map { _ in random.word() },
                ok: random.below(10) != 0
            )
            // `JSONEncoder` escapes nothing that would need a line end, so each record is one line.
            body.append((try? encoder.encode(record)) ?? Data())
            body.append(UInt8(ascii: "\n"))
        }
        return body
    }()
}

/// The request the stream benchmarks send to a ``ChunkedPerformer``.
struct StreamRequest: Request {
    typealias ResponseObject = Data

    func build() throws -> URLRequest {
        URLRequest(url: URL(filePath: "/feed"))
    }
}

/// A transport that answers every request with one body, streamed in the chunks of a ``ChunkedBody``.
struct ChunkedPerformer: RequestPerformer {
    let body: Data
    let contentType: String

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        HTTPResponse(status: .ok, headers: ["Content-Type": contentType], body: body)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        HTTPResponse.Streamed(
            status: .ok,
            headers: ["Content-Type": contentType],
            body: HTTPBody(ChunkedBody(body), expectedLength: Int64(body.count))
        )
    }
}

/// A body already received, handed out in 16 KiB chunks.
struct ChunkedBody: AsyncSequence, Sendable {
    typealias Element = Data
    let body: Data

    init(_ body: Data) {
        self.body = body
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(body: body, offset: body.startIndex)
    }

    struct Iterator: AsyncIteratorProtocol {
        let body: Data
        var offset: Int

        mutating func next() async -> Data? {
            guard offset < body.endIndex else { return nil }
            let end = Swift.min(offset + 16_384, body.endIndex)
            defer { offset = end }
            return body[offset..<end]
        }
    }
}

/// The bytes of a ``ChunkedBody`` one at a time, as `URLSession.AsyncBytes` hands out a response's: from the chunk at
/// hand without suspending, and asking for the next chunk only when it runs out.
struct ChunkedBytes: AsyncSequence, Sendable {
    typealias Element = UInt8
    let body: Data

    init(_ body: Data) {
        self.body = body
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: ChunkedBody(body).makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: ChunkedBody.Iterator
        var chunk = Data()
        var offset = 0

        mutating func next() async -> UInt8? {
            if offset == chunk.endIndex {
                guard let next = await chunks.next() else { return nil }
                chunk = next
                offset = next.startIndex
            }
            defer { offset += 1 }
            return chunk[offset]
        }
    }
}
