// swift-format-ignore-file: NeverForceUnwrap

// The snippets of the "Testing with Sluice" article, verbatim; its test functions run as tests here.
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
}

private struct GetProfile: Request, Equatable {
    typealias ResponseObject = Profile
    let id: Int

    func build() throws -> URLRequest {
        URLRequest(url: URL(string: "https://api.example.com/profiles/\(id)")!)
    }
}

/// The app's dependencies, as the article's parallel example holds them.
private enum AppDependencies {
    static let client = MockClient()
}

/// The record-and-replay snippet as the article writes it, with its fixture directory; compiled, and run by
/// `recordsAndReplays()` against a temporary directory instead.
private func articleRecordAndReplay() throws -> (APIClient, APIClient) {
    let fixtures = URL(fileURLWithPath: "Tests/Fixtures/Profiles")
    let recording = APIClient(
        requestPerformer: RecordingPerformer(base: NetworkRequestPerformer(), directory: fixtures)
    )
    let replaying = APIClient(requestPerformer: try ReplayingPerformer(directory: fixtures))
    return (recording, replaying)
}

@Suite struct TestingArticleSnippetsTests {
    @Test func showsTheProfileName() async throws {
        let mock = MockClient()
        mock.stub(matching: GetProfile(id: 1), .json(#"{"id": 1, "name": "Ada"}"#)).expect(calls: 1)
        mock.stub(GetProfile.self, .failure(SluiceError(.status, message: "not found")))

        let profile = try await mock.perform(GetProfile(id: 1))
        #expect(profile.name == "Ada")
        try await #require(throws: SluiceError.self) { try await mock.perform(GetProfile(id: 2)) }
        try mock.verify()
    }

    @Test(arguments: ["Ada", "Grace"])
    func greets(_ name: String) async throws {
        try await AppDependencies.client.withScope {
            AppDependencies.client.stub(GetProfile.self, .json(#"{"id": 1, "name": "\#(name)"}"#))
            let profile = try await AppDependencies.client.perform(GetProfile(id: 1))
            #expect(profile.name == name)
        }
    }

    @Test func recordsAndReplays() throws {
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-article-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fixtures) }
        let recording = APIClient(
            requestPerformer: RecordingPerformer(base: NetworkRequestPerformer(), directory: fixtures)
        )
        let replaying = APIClient(requestPerformer: try ReplayingPerformer(directory: fixtures))
        _ = (recording, replaying)
        // The article's own directory does not exist here: replaying from it fails, naming it.
        let error = try #require(throws: (any Error).self) { try articleRecordAndReplay() }
        #expect("\(error)".contains("Tests/Fixtures/Profiles"), "\(error)")
    }

    @Test func replaysTheDocumentedFixture() async throws {
        let fixtures = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-article-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: fixtures) }
        let documented = #"""
            {
              "method" : "GET",
              "request" : {
                "headers" : {
                  "Authorization" : "<redacted>"
                }
              },
              "response" : {
                "body" : "{\"id\": 1, \"name\": \"Ada\"}",
                "headers" : {
                  "Content-Type" : "application/json"
                }
              },
              "status" : 200,
              "url" : "https://api.example.com/profiles/1"
            }
            """#
        try Data(documented.utf8).write(to: fixtures.appendingPathComponent("0001-GET-profiles_1.json"))
        let replaying = APIClient(requestPerformer: try ReplayingPerformer(directory: fixtures))
        #expect(try await replaying.perform(GetProfile(id: 1)).name == "Ada")
    }

    @Test func sendsTheQuery() async throws {
        let server = try LoopbackServer()
        server.route("GET", "/profiles/1", response: .json(#"{"id": 1, "name": "Ada"}"#))
        struct Local: Request {
            typealias ResponseObject = Profile
            let url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        _ = try await APIClient().perform(Local(url: server.url("/profiles/1?fields=name")))
        #expect(server.receivedRequests.first?.queryItems == [URLQueryItem(name: "fields", value: "name")])
    }

    @Test func resumesADownload() async throws {
        let server = try LoopbackServer()
        server.route("/file", response: .generated(byteCount: 1_000_000).servingRanges(etag: "v1"))
        var request = URLRequest(url: server.url("/file"))
        request.setValue("bytes=400000-", forHTTPHeaderField: "Range")
        request.setValue(#""v1""#, forHTTPHeaderField: "If-Range")
        let response = try await NetworkRequestPerformer().perform(request)
        #expect(response.status == .partialContent)
        #expect(response.body == LoopbackServer.Response.generatedBytes(in: 400_000..<1_000_000))
        #expect(server.receivedRequests.first?.header("Range") == "bytes=400000-")
    }
}
