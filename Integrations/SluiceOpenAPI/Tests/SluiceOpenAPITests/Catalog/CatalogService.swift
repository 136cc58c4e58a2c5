import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The server side of the test API: the generated `APIProtocol`, implemented as the document describes each
/// operation, with state of its own (counters, the current token) so that each test's server starts afresh.
final class CatalogService: APIProtocol {
    /// The bearer token `getSecret` accepts.
    let currentToken: String
    private let items: [String: Components.Schemas.Item] = [
        "42": .init(id: "42", name: "Lamp", tags: ["home", "light"], price: 19.5),
        "43": .init(id: "43", name: "Desk", tags: ["home"]),
        "44": .init(id: "44", name: "Torch", tags: ["light", "outdoor"], price: 7),
    ]
    private let counters = Protected<[String: Int]>([:])

    init(currentToken: String = "token-2") {
        self.currentToken = currentToken
    }

    /// Counts a visit for a key, and returns its number, from 1.
    private func visit(_ key: String) -> Int {
        counters.withLock { counters in
            counters[key, default: 0] += 1
            return counters[key, default: 0]
        }
    }

    /// How often a key was visited.
    func visits(_ key: String) -> Int {
        counters.withLock { $0[key, default: 0] }
    }

    func listItems(_ input: Operations.ListItems.Input) async throws -> Operations.ListItems.Output {
        let tags = input.query.tag ?? []
        let matching = items.values.sorted { $0.id < $1.id }.filter { item in tags.allSatisfy(item.tags.contains) }
        let limited = Array(matching.prefix(input.query.limit ?? .max))
        return .ok(.init(headers: .init(xTotalCount: matching.count), body: .json(limited)))
    }

    func createItem(_ input: Operations.CreateItem.Input) async throws -> Operations.CreateItem.Output {
        guard case .json(let new) = input.body, !new.name.isEmpty else {
            return .unprocessableContent(
                .init(body: .json(.init(title: "Unprocessable", status: 422, detail: "name: must not be empty")))
            )
        }
        let item = Components.Schemas.Item(id: "100", name: new.name, tags: new.tags, price: new.price)
        return .created(.init(headers: .init(location: "/v1/items/100"), body: .json(item)))
    }

    func getItem(_ input: Operations.GetItem.Input) async throws -> Operations.GetItem.Output {
        switch input.path.itemId {
        case "7":
            return .gone(.init(body: .json(.init(title: "Gone", status: 410, detail: "item 7 was deleted"))))
        case "broken":
            return .default(
                statusCode: 500,
                .init(body: .json(.init(title: "Internal Server Error", status: 500)))
            )
        case let id:
            guard var item = items[id] else {
                return .notFound(.init(body: .json(.init(title: "Not Found", status: 404, detail: "no item \(id)"))))
            }
            if input.query.fields == "name" {
                item.tags = []
                item.price = nil
            }
            return .ok(.init(body: .json(item)))
        }
    }

    func checkItem(_ input: Operations.CheckItem.Input) async throws -> Operations.CheckItem.Output {
        guard items[input.path.itemId] != nil else { return .notFound(.init()) }
        return .noContent(.init(headers: .init(eTag: "\"item-\(input.path.itemId)\"")))
    }

    func uploadAttachment(
        _ input: Operations.UploadAttachment.Input
    ) async throws
        -> Operations.UploadAttachment.Output
    {
        guard case .multipartForm(let parts) = input.body else { return .undocumented(statusCode: 415, .init()) }
        var description = ""
        var summary = ByteSummary()
        for try await part in parts {
            switch part {
            case .description(let text):
                description = try await String(collecting: text.payload.body, upTo: 1 << 16)
            case .file(let file):
                for try await chunk in file.payload.body {
                    summary.add(chunk)
                }
            case .undocumented:
                break
            }
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        itemId: input.path.itemId,
                        description: description,
                        size: summary.size,
                        checksum: summary.checksum
                    )
                )
            )
        )
    }

    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        let events = (0..<input.query.count).map { Components.Schemas.Event(sequence: $0, message: "event \($0)") }
        let lines = AsyncStream<Components.Schemas.Event> { continuation in
            for event in events {
                continuation.yield(event)
            }
            continuation.finish()
        }
        return .ok(
            .init(
                body: .applicationJsonl(
                    HTTPBody(lines.asEncodedJSONLines(), length: .unknown, iterationBehavior: .single)
                )
            )
        )
    }

    func downloadBlob(_ input: Operations.DownloadBlob.Input) async throws -> Operations.DownloadBlob.Output {
        let size = input.path.size
        return .ok(
            .init(
                body: .binary(
                    HTTPBody(PatternBytes(size: size), length: .known(Int64(size)), iterationBehavior: .multiple)
                )
            )
        )
    }

    func upload(_ input: Operations.Upload.Input) async throws -> Operations.Upload.Output {
        guard case .binary(let body) = input.body else { return .undocumented(statusCode: 415, .init()) }
        var summary = ByteSummary()
        for try await chunk in body {
            summary.add(chunk)
        }
        return .ok(.init(body: .json(.init(size: summary.size, checksum: summary.checksum))))
    }

    func getFlaky(_ input: Operations.GetFlaky.Input) async throws -> Operations.GetFlaky.Output {
        let attempt = visit("flaky/" + input.path.key)
        guard attempt > input.query.failures else {
            return .serviceUnavailable(
                .init(
                    headers: .init(retryAfter: 1),
                    body: .json(.init(title: "Service Unavailable", status: 503, detail: "attempt \(attempt)"))
                )
            )
        }
        return .ok(.init(body: .json(.init(key: input.path.key, attempt: attempt))))
    }

    func getSecret(_ input: Operations.GetSecret.Input) async throws -> Operations.GetSecret.Output {
        guard RequestHeadCapture.current?.headerFields[.authorization] == "Bearer \(currentToken)" else {
            return .unauthorized(.init(headers: .init(wwwAuthenticate: "Bearer realm=\"catalog\"")))
        }
        return .ok(.init(body: .json(.init(secret: "open sesame", token: currentToken))))
    }

    func readCounter(_ input: Operations.ReadCounter.Input) async throws -> Operations.ReadCounter.Output {
        let attempt = visit("counter/" + input.path.key)
        // `CatalogServer` adds the `Cache-Control` field (see the document).
        return .ok(.init(body: .json(.init(key: input.path.key, attempt: attempt))))
    }
}

/// A body's length and the sum of its bytes, which both ends of a transfer compute to compare.
struct ByteSummary: Sendable, Hashable {
    private(set) var size = 0
    private(set) var checksum = 0

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            size += 1
            checksum = (checksum &+ Int(byte)) % 1_000_000_007
        }
    }
}

/// `size` bytes of a repeating pattern, in chunks of 64 KiB, made as they are read.
struct PatternBytes: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let size: Int

    /// The byte at an offset.
    static func byte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % 251)
    }

    /// The summary of the whole pattern, to check a transfer against.
    var summary: ByteSummary {
        var summary = ByteSummary()
        summary.add((0..<size).lazy.map(PatternBytes.byte(at:)))
        return summary
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(size: size)
    }

    struct Iterator: AsyncIteratorProtocol {
        let size: Int
        var offset = 0

        mutating func next() async -> ArraySlice<UInt8>? {
            guard offset < size else { return nil }
            let end = Swift.min(size, offset + 65_536)
            defer { offset = end }
            return ArraySlice((offset..<end).map(PatternBytes.byte(at:)))
        }
    }
}
