import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Body excerpts, in error messages and in logs, cut before a character rather than through it.
@Suite struct ExcerptTests {
    /// Text with a character of more than one byte across the 512-byte cut: it starts at the 512th byte.
    private static func body(cutInsideACharacterOf character: String) -> Data {
        Data((String(repeating: "x", count: 511) + character + String(repeating: "y", count: 10)).utf8)
    }

    @Test(arguments: ["é", "€", "🦊"])
    func errorExcerptStopsBeforeACharacterAtTheCut(_ character: String) async throws {
        let body = Self.body(cutInsideACharacterOf: character)
        let stub = StubPerformer(always: HTTPResponse(status: .internalServerError, body: body))
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(Fetch())
        }
        let excerpt = String(repeating: "x", count: 511) + "… (\(body.count - 511) more bytes)"
        #expect(error.bodyExcerpt == excerpt)
        #expect(error.description.hasSuffix("\n   | body: " + excerpt), "\(error)")
        #expect(!error.description.contains("\u{FFFD}"))
    }

    @Test(arguments: ["é", "€", "🦊"])
    func loggedExcerptStopsBeforeACharacterAtTheCut(_ character: String) async throws {
        let text = "ab" + character + "cd"
        #expect(Redaction.default.body(Data(text.utf8), limit: 3) == "ab… (\(text.utf8.count - 2) more bytes)")
        let lines = Locked<[String]>([])
        let performer = StubPerformer(always: HTTPResponse(status: .ok, body: Data(text.utf8)))
            .logged(bodyLimit: 3, to: { line in lines.withLock { $0.append(line) } })
        _ = try await APIClient(requestPerformer: performer).perform(Fetch())
        let log = lines.withLock { $0 }.joined(separator: "\n")
        #expect(log.contains("    body: ab… (\(text.utf8.count - 2) more bytes)"), "\(log)")
        #expect(!log.contains("\u{FFFD}"), "\(log)")
    }

    @Test func excerptKeepsAWholeCharacterThatEndsAtTheCut() {
        #expect(Redaction.default.body(Data("ab€cd".utf8), limit: 5) == "ab€… (2 more bytes)")
        #expect(Redaction.default.body(Data("ab€".utf8), limit: 5) == "ab€")
        #expect(Redaction.default.body(Data("ab€".utf8), limit: 0) == "… (5 more bytes)")
    }
}

/// A GET whose body is received as it is.
private struct Fetch: Request {
    typealias ResponseObject = Data

    func build() throws -> URLRequest {
        URLRequest(url: try #require(URL(string: "https://api.example.com/fetch")))
    }
}
