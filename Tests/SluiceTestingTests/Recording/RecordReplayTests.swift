import Foundation
import SluiceCore
import SluiceTesting
import Testing

@Suite struct RecordReplayTests {
    struct Login: Request {
        typealias ResponseObject = JSON
        var url: URL
        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("Bearer s3cr3t", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(#"{"user": "ada", "password": "s3cr3t"}"#.utf8)
            return request
        }
    }

    struct Fetch: Request {
        typealias ResponseObject = Data
        var url: URL
        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    @Test func recordsExchangesWithoutSecretsAndReplaysThemOffline() async throws {
        let server = try LoopbackServer()
        server.route("POST", "/login") { _ in
            LoopbackServer.Response.json(#"{"token": "s3cr3t", "user": "ada"}"#).addingHeader("Set-Cookie", "id=s3cr3t")
        }
        let counter = Locked(0)
        server.route("GET", "/counter") { _ in
            let call = counter.withLock { count in
                count += 1
                return count
            }
            return .text("call \(call)")
        }
        server.route("GET", "/logo", response: LoopbackServer.Response(body: Data([0xFF, 0x00, 0xFE])))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-fixtures-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let redaction = Redaction.default.adding(jsonKeys: ["password", "token"])

        let recording = APIClient(
            requestPerformer: RecordingPerformer(
                base: NetworkRequestPerformer(),
                directory: directory,
                redaction: redaction
            )
        )
        let live = try await recording.perform(Login(url: server.url("/login")))
        #expect(live["token"]?.string == "s3cr3t")
        #expect(try await recording.perform(Fetch(url: server.url("/counter"))) == Data("call 1".utf8))
        #expect(try await recording.perform(Fetch(url: server.url("/counter"))) == Data("call 2".utf8))
        #expect(try await recording.perform(Fetch(url: server.url("/logo"))) == Data([0xFF, 0x00, 0xFE]))

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count == 4)
        #expect(files.first == "0001-POST-login.json")
        let contents = try files.map { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
        #expect(contents.allSatisfy { !$0.contains("s3cr3t") }, "\(contents)")
        #expect(contents[0].contains("\"Authorization\" : \"<redacted>\""))
        #expect(contents[0].contains(#"\"password\":\"<redacted>\""#))

        server.stop()
        let replay = APIClient(requestPerformer: try ReplayingPerformer(directory: directory, redaction: redaction))
        let replayed = try await replay.perform(Login(url: server.url("/login")))
        #expect(replayed["user"]?.string == "ada")
        #expect(replayed["token"]?.string == "<redacted>")
        #expect(try await replay.perform(Fetch(url: server.url("/counter"))) == Data("call 1".utf8))
        #expect(try await replay.perform(Fetch(url: server.url("/counter"))) == Data("call 2".utf8))
        #expect(try await replay.perform(Fetch(url: server.url("/counter"))) == Data("call 2".utf8))
        #expect(try await replay.perform(Fetch(url: server.url("/logo"))) == Data([0xFF, 0x00, 0xFE]))

        let missing = try await #require(throws: SluiceError.self) {
            try await replay.perform(Fetch(url: server.url("/unknown")))
        }
        #expect(missing.code == .transport)
        #expect(
            missing.message.contains("no fixture in \(directory.path) for GET http://127.0.0.1:\(server.port)/unknown")
        )
        #expect(missing.message.contains("GET http://127.0.0.1:\(server.port)/counter"))
    }

    struct Upload: Request {
        typealias ResponseObject = Data
        var url: URL
        var body: Data
        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "PUT"
            request.httpBody = body
            return request
        }
    }

    @Test func recordsBodiesByteForByteUnlessARedactionHidesAValue() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let spaced = Data("{\n  \"id\": 1,\n  \"name\": \"Ada\"\n}\n".utf8)
        let binary = Data([0xFF, 0x00, 0xFE, 0x0A])
        server.route("PUT", "/avatar", response: .json(String(decoding: spaced, as: UTF8.self)))
        server.route("PUT", "/profile", response: .json(#"{"name": "Ada", "token": "s3cr3t"}"#))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-bytes-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let redaction = Redaction.default.adding(jsonKeys: ["token"])
        let recording = APIClient(
            requestPerformer: RecordingPerformer(
                base: NetworkRequestPerformer(),
                directory: directory,
                redaction: redaction
            )
        )
        #expect(try await recording.perform(Upload(url: server.url("/avatar"), body: binary)) == spaced)
        let profile = Data(#"{ "name": "Ada" }"#.utf8)
        _ = try await recording.perform(Upload(url: server.url("/profile"), body: profile))

        let avatar = try JSON(parsing: Data(contentsOf: directory.appendingPathComponent("0001-PUT-avatar.json")))
        #expect(avatar["request"]?["bodyBase64"]?.string == binary.base64EncodedString())
        #expect(avatar["request"]?["body"] == nil)
        #expect(avatar["response"]?["body"]?.string == String(decoding: spaced, as: UTF8.self))
        let recorded = try JSON(parsing: Data(contentsOf: directory.appendingPathComponent("0002-PUT-profile.json")))
        #expect(recorded["request"]?["body"]?.string == #"{ "name": "Ada" }"#)
        // A hidden value had to be replaced, so that body is written again, compact.
        #expect(recorded["response"]?["body"]?.string == #"{"name":"Ada","token":"<redacted>"}"#)

        server.stop()
        let replay = APIClient(requestPerformer: try ReplayingPerformer(directory: directory, redaction: redaction))
        #expect(try await replay.perform(Upload(url: server.url("/avatar"), body: binary)) == spaced)
    }

    @Test func recordsNoSecretFromFormOrTextBodies() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("PUT", "/login", response: .text("ok"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-forms-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = APIClient(
            requestPerformer: RecordingPerformer(
                base: NetworkRequestPerformer(),
                directory: directory,
                redaction: Redaction.default.adding(queryItems: ["sig", "password"])
            )
        )
        _ = try await recording.perform(Upload(url: server.url("/login"), body: Data("user=ada&password=s3cr3t".utf8)))
        _ = try await recording.perform(Upload(url: server.url("/login"), body: Data("sig: s3cr3t".utf8)))
        let form = try JSON(parsing: Data(contentsOf: directory.appendingPathComponent("0001-PUT-login.json")))
        #expect(form["request"]?["body"]?.string == "user=ada&password=%3Credacted%3E")
        let text = try String(contentsOf: directory.appendingPathComponent("0002-PUT-login.json"), encoding: .utf8)
        #expect(!text.contains("s3cr3t"), "\(text)")
        #expect(text.contains(#""body" : "sig: <redacted>""#))
    }

    @Test func replaysInTheOrderOfTheFixtureNumbersPastFourDigits() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-order-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Names as the recorder writes them, and one written by hand without a number, which comes last.
        for (name, body) in [
            ("9999-GET-counter.json", "9999"), ("10000-GET-counter.json", "10000"), ("0998-GET-counter.json", "998"),
            ("handwritten.json", "by hand"), ("10001-GET-counter.json", "10001"),
        ] {
            let fixture = #"""
                {"method": "GET", "url": "https://api.example.com/counter", "request": {"headers": {}},
                 "status": 200, "response": {"headers": {"Content-Type": "text/plain"}, "body": "\#(body)"}}
                """#
            try Data(fixture.utf8).write(to: directory.appendingPathComponent(name))
        }
        let replay = APIClient(requestPerformer: try ReplayingPerformer(directory: directory))
        let url = try #require(URL(string: "https://api.example.com/counter"))
        var answers: [String] = []
        for _ in 0..<6 {
            answers.append(String(decoding: try await replay.perform(Fetch(url: url)), as: UTF8.self))
        }
        #expect(answers == ["998", "9999", "10000", "10001", "by hand", "by hand"])
    }

    @Test func rendersAReplayMissOnceAndInsideTheGutter() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-none-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let replay = APIClient(requestPerformer: try ReplayingPerformer(directory: directory))
        let url = try #require(URL(string: "https://api.example.com/users"))
        let error = try await #require(throws: SluiceError.self) { try await replay.perform(Fetch(url: url)) }
        #expect(
            error.description == """
                error: the request failed: no fixture in \(directory.path) for GET https://api.example.com/users; \
                the fixtures are for:
                  --> GET https://api.example.com/users [stage: transport]
                   |
                   |   (none)
                """
        )
    }

    @Test func refusesAnUnreadableFixture() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{not json".utf8).write(to: directory.appendingPathComponent("0001-GET-x.json"))
        let error = try #require(throws: SluiceTestingError.self) { try ReplayingPerformer(directory: directory) }
        #expect(error.kind == .missingFixture)
        #expect(
            error.description.hasPrefix(
                "the fixture 0001-GET-x.json cannot be read: error: invalid JSON at line 1, column 2"
            )
        )
    }

    @Test func aRecordedStreamIsReplayedInTheChunksItArrivedIn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-fixtures-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = MockClient.StreamScript(
            headers: [.contentType: "application/x-ndjson"],
            parts: [.text("{\"n\":1}\n"), .text("{\"n\":"), .text("2}\n")]
        )
        let recorder = RecordingPerformer(base: StubPerformer(streaming: script), directory: directory)
        let request = URLRequest(url: URL(fileURLWithPath: "/numbers"))
        var recorded: [Data] = []
        for try await chunk in try await recorder.stream(request).body {
            recorded.append(chunk)
        }
        let replayed = try await ReplayingPerformer(directory: directory).stream(request)
        #expect(replayed.headers[.contentType] == "application/x-ndjson")
        var chunks: [Data] = []
        for try await chunk in replayed.body {
            chunks.append(chunk)
        }
        #expect(chunks == recorded)
        #expect(chunks.map { String(decoding: $0, as: UTF8.self) } == ["{\"n\":1}\n", "{\"n\":", "2}\n"])
        let buffered = try await ReplayingPerformer(directory: directory).perform(request)
        #expect(buffered.body == Data("{\"n\":1}\n{\"n\":2}\n".utf8))
    }

    @Test func aStreamNotReadToItsEndIsNotRecorded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-fixtures-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = MockClient.StreamScript(parts: [.text("partial"), .failure(URLError(.networkConnectionLost))])
        let recorder = RecordingPerformer(base: StubPerformer(streaming: script), directory: directory)
        let response = try await recorder.stream(URLRequest(url: URL(fileURLWithPath: "/cut")))
        await #expect(throws: URLError.self) { try await response.body.collect(upTo: 100) }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }
}
