import Foundation
import SluiceCore
import SluiceTesting
import Testing

private struct Login: Request {
    typealias ResponseObject = JSON
    var url: URL

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cr3t-token", forHTTPHeaderField: "Authorization")
        request.setValue("session=s3cr3t-cookie", forHTTPHeaderField: "Cookie")
        request.setValue("s3cr3t-key", forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            #"{"user": "ada", "password": "s3cr3t-password", "profile": {"token": "s3cr3t-nested"}}"#.utf8
        )
        return request
    }
}

/// Collects log entries and events, for the tests to read.
private final class Recorder: RequestObserver {
    let lines = Locked<[String]>([])
    let events = Locked<[RequestEvent]>([])

    func write(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    func observe(_ event: RequestEvent) {
        events.withLock { $0.append(event) }
    }
}

@Suite struct ObservingPerformerTests {
    let server: LoopbackServer
    let redaction = Redaction.default.adding(
        headers: ["X-API-Key"],
        jsonKeys: ["password", "token"],
        queryItems: ["api_key"]
    )

    init() throws {
        server = try LoopbackServer()
        server.route("POST", "/login") { _ in
            LoopbackServer.Response.json(#"{"token": "s3cr3t-issued", "user": "ada"}"#).addingHeader(
                "Set-Cookie",
                "session=s3cr3t-set"
            )
        }
    }

    @Test func logsWithoutSecrets() async throws {
        let recorder = Recorder()
        let performer = NetworkRequestPerformer().logged(
            redacting: redaction,
            bodyLimit: 4_096,
            to: { recorder.write($0) }
        )
        let url = server.url("/login?api_key=s3cr3t-query&page=1")
        _ = try await APIClient(requestPerformer: performer).perform(Login(url: url))
        let log = recorder.lines.withLock { $0 }.joined(separator: "\n")
        #expect(!log.contains("s3cr3t"), "\(log)")
        #expect(log.contains("→ #"))
        #expect(log.contains("POST http://127.0.0.1:\(server.port)/login?api_key=%3Credacted%3E&page=1"))
        #expect(log.contains("Authorization: <redacted>"))
        #expect(log.contains("X-Api-Key: <redacted>"))
        #expect(log.contains(#"body: {"user":"ada","password":"<redacted>","profile":{"token":"<redacted>"}}"#))
        #expect(log.contains("← #"))
        #expect(log.contains("200 OK POST"))
        #expect(log.contains("Set-Cookie: <redacted>"))
    }

    /// An error and an event are values a user keeps and prints: the request in them has its credentials hidden as
    /// the rendered message hides them, and only the package reaches the request as it was sent.
    @Test func errorsAndEventsCarryTheRequestWithItsCredentialsHidden() async throws {
        server.route("POST", "/refused") { _ in LoopbackServer.Response.json(#"{"error": "no"}"#, status: 403) }
        let recorder = Recorder()
        let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: recorder))
        let url = server.url("/refused?api_key=s3cr3t-query&page=1")
        let error = await #expect(throws: SluiceError.self) { try await client.perform(Login(url: url)) }
        let events = recorder.events.withLock { $0 }
        #expect(events.map(\.kind) == [.started, .finished])
        for request in [error?.request] + events.map(\.request) {
            let request = try #require(request)
            #expect(
                request.url?.absoluteString == "http://127.0.0.1:\(server.port)/refused?api_key=%3Credacted%3E&page=1"
            )
            #expect(request.value(forHTTPHeaderField: "Authorization") == Redaction.placeholder)
            #expect(request.value(forHTTPHeaderField: "Cookie") == Redaction.placeholder)
            #expect(request.value(forHTTPHeaderField: "X-API-Key") == Redaction.placeholder)
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
            #expect(
                String(decoding: request.httpBody ?? Data(), as: UTF8.self)
                    == #"{"user":"ada","password":"<redacted>","profile":{"token":"<redacted>"}}"#
            )
        }
        #expect(error?.unredactedRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer s3cr3t-token")
        #expect(error.map { "\($0)" }?.contains("s3cr3t") == false)
    }

    /// A refused WebSocket handshake's error names the request without the credentials it was authorised with.
    @Test func aRefusedWebSocketHandshakeCarriesNoCredential() async throws {
        server.route("GET", "/socket") { _ in LoopbackServer.Response.text("sign in first", status: 401) }
        var request = URLRequest(url: server.url("/socket"))
        request.setValue("Bearer s3cr3t-token", forHTTPHeaderField: "Authorization")
        let error = await #expect(throws: SluiceError.self) {
            _ = try await SocketRequestPerformer().webSocket(request, protocols: [], configuration: .init())
        }
        #expect(error?.code == .handshake)
        #expect(error?.request?.value(forHTTPHeaderField: "Authorization") == Redaction.placeholder)
        #expect(error.map { "\($0)" }?.contains("s3cr3t") == false)
    }

    /// As the transport's instrumentation, the observer writes the pool's records at its level, one line each.
    @Test func writesThePoolsRecordsAsTheTransportsInstrumentation() async throws {
        server.route("GET", "/ping") { _ in .text("pong") }
        let recorder = Recorder()
        let observer = LoggingObserver(write: { recorder.write($0) }, logLevel: .debug)
        let transport = SocketRequestPerformer(instrumentation: observer)
        _ = try await transport.perform(URLRequest(url: server.url("/ping")))
        transport.closeIdleConnections()
        let lines = recorder.lines.withLock { $0 }
        try #require(lines.count == 2, "\(lines)")
        let opened = "· debug connection opened url.scheme=http server.address=127.0.0.1 server.port=\(server.port)"
        #expect(lines[0].hasPrefix(opened + " sluice.connection.id="), "\(lines[0])")
        #expect(lines[0].hasSuffix(" network.protocol.version=1.1"), "\(lines[0])")
        #expect(
            lines[1]
                == "· debug idle connections closed url.scheme=http server.address=127.0.0.1 "
                + "server.port=\(server.port) sluice.connection.count=1"
        )
        let quiet = Recorder()
        let infoTransport = SocketRequestPerformer(instrumentation: LoggingObserver(write: { quiet.write($0) }))
        _ = try await infoTransport.perform(URLRequest(url: server.url("/ping")))
        #expect(quiet.lines.withLock { $0 }.isEmpty)
    }

    @Test func logsNoBodiesUnlessAsked() async throws {
        let recorder = Recorder()
        let performer = NetworkRequestPerformer().logged(to: { recorder.write($0) })
        _ = try await APIClient(requestPerformer: performer).perform(Login(url: server.url("/login")))
        let log = recorder.lines.withLock { $0 }.joined(separator: "\n")
        #expect(!log.contains("body:"))
        #expect(!log.contains("s3cr3t-token"))
        #expect(!log.contains("s3cr3t-key"), "the default redaction hides X-API-Key")
    }

    @Test func rendersCurlWithoutSecrets() throws {
        let request = try Login(url: server.url("/login?api_key=s3cr3t-query")).build()
        let curl = request.curlCommand(redacting: redaction)
        #expect(!curl.contains("s3cr3t"), "\(curl)")
        #expect(curl.hasPrefix("curl -X POST 'http://127.0.0.1:\(server.port)/login?api_key=%3Credacted%3E'"))
        #expect(curl.contains("-H 'Authorization: <redacted>'"))
        #expect(curl.contains("-H 'Content-Type: application/json'"))
        #expect(
            curl.contains(#"--data-binary '{"user":"ada","password":"<redacted>","profile":{"token":"<redacted>"}}'"#)
        )
        var quoted = URLRequest(url: server.url("/q"))
        quoted.httpBody = Data("it's".utf8)
        #expect(quoted.curlCommand().hasSuffix(#"--data-binary 'it'\''s'"#))
    }

    @Test func redactsFormBodiesByFieldName() {
        let form = Data("user=ada&password=s3cr3t%21&remember=1&api%5Fkey=s3cr3t-q".utf8)
        #expect(
            redaction.body(form, limit: 1_000) == "user=ada&password=%3Credacted%3E&remember=1&api%5Fkey=%3Credacted%3E"
        )
    }

    @Test func hidesTheValuesAfterHiddenNamesInOtherText() {
        // Not JSON (a trailing comma): the value after each hidden name is replaced as in plain text.
        let broken = Data(#"{"user":"ada","password":"s3cr3t",}"#.utf8)
        #expect(redaction.body(broken, limit: 1_000) == #"{"user":"ada","password":"<redacted>",}"#)
        let text = Data("token=s3cr3t-1 and then\nAPI-Key: Bearer s3cr3t-2 s3cr3t-3\nsecret 'x'".utf8)
        #expect(
            redaction.body(text, limit: 1_000) == "token=<redacted> and then\nAPI-Key: <redacted>\nsecret 'x'"
        )
        var request = URLRequest(url: server.url("/login"))
        request.httpBody = broken
        #expect(!request.curlCommand(redacting: redaction).contains("s3cr3t"))
        // Text that mentions no hidden name is shown as it is.
        #expect(redaction.body(Data("hello, world".utf8), limit: 1_000) == "hello, world")
    }

    @Test func hidesTheDefaultHeadersAndAURLPassword() throws {
        var request = URLRequest(url: try #require(URL(string: "https://ada:s3cr3t@api.example.com/x")))
        request.setValue("Basic s3cr3t-proxy", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("a=s3cr3t-set", forHTTPHeaderField: "Set-Cookie")
        let curl = request.curlCommand()
        #expect(!curl.contains("s3cr3t"), "\(curl)")
        #expect(curl.hasPrefix("curl 'https://ada:%3Credacted%3E@api.example.com/x'"))
        #expect(curl.contains("-H 'Proxy-Authorization: <redacted>'"))
    }

    @Test func cutsLoggedBodiesAtTheLimit() async throws {
        let recorder = Recorder()
        let performer = NetworkRequestPerformer().logged(
            redacting: redaction,
            bodyLimit: 16,
            to: { recorder.write($0) }
        )
        _ = try await APIClient(requestPerformer: performer).perform(Login(url: server.url("/login")))
        let log = recorder.lines.withLock { $0 }.joined(separator: "\n")
        #expect(log.contains(#"body: {"user":"ada","p… (55 more bytes)"#), "\(log)")
        #expect(log.contains(#"body: {"token":"<redac… (19 more bytes)"#), "\(log)")
    }

    @Test func reportsOneStartAndOneFinishWithEveryStage() async throws {
        let recorder = Recorder()
        let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: recorder))
        _ = try await client.perform(Login(url: server.url("/login")))
        let events = recorder.events.withLock { $0 }
        #expect(events.map(\.kind) == [.started, .finished])
        let finished = try #require(events.last)
        #expect(finished.id == events.first?.id)
        #expect(finished.response?.status == .ok)
        #expect(finished.attempts == 1)
        #expect(finished.metrics.build > .zero)
        #expect(finished.metrics.transport > .zero)
        #expect(finished.metrics.deserialize > .zero)
        #expect(finished.metrics.parse > .zero)
        #expect(finished.metrics.requestBodyBytes == 85)
        #expect(finished.metrics.responseBodyBytes == 41)
    }

    @Test func countsAttemptsWhenInsideARetry() async throws {
        let served = Locked(0)
        server.route("GET", "/twice") { _ in
            served.withLock { served in
                served += 1
                return served == 1 ? LoopbackServer.Response(status: 503) : .json("{}")
            }
        }
        let metrics = MetricsObserver()
        let recorder = Recorder()
        let performer = NetworkRequestPerformer().observed(by: recorder).retrying(
            RetryingPerformer.Policy(baseDelay: .milliseconds(1), deadline: nil)
        ).observed(by: metrics)
        struct Get: Request {
            typealias ResponseObject = JSON
            var url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        _ = try await APIClient(requestPerformer: performer).perform(Get(url: server.url("/twice")))
        let events = recorder.events.withLock { $0 }
        #expect(events.map(\.kind) == [.started, .finished], "inside the retry, still one start and one finish")
        #expect(events.last?.attempts == 2)
        let snapshot = metrics.snapshot
        #expect(snapshot.started == 1)
        #expect(snapshot.finished == 1)
        #expect(snapshot.attempts == 2)
        #expect(snapshot.statuses == [200: 1])
        #expect(snapshot.stageTotals.transport > .zero)
    }

    @Test func countsFailuresByCode() async throws {
        server.route("GET", "/missing", response: .text("no", status: 404))
        let metrics = MetricsObserver()
        let client = APIClient(requestPerformer: NetworkRequestPerformer().observed(by: metrics))
        struct Get: Request {
            typealias ResponseObject = JSON
            var url: URL
            func build() throws -> URLRequest { URLRequest(url: url) }
        }
        _ = try? await client.perform(Get(url: server.url("/missing")))
        #expect(metrics.snapshot.failures == ["status": 1])
        #expect(metrics.snapshot.statuses == [404: 1])
        metrics.reset()
        #expect(metrics.snapshot.finished == 0)
    }

    @Test func reportsTheTransportAloneWithoutAClient() async throws {
        let recorder = Recorder()
        let performer = NetworkRequestPerformer().observed(by: recorder)
        _ = try await performer.perform(try Login(url: server.url("/login")).build())
        let events = recorder.events.withLock { $0 }
        #expect(events.map(\.kind) == [.started, .finished])
        #expect(events.last?.metrics.transport ?? .zero > .zero)
        #expect(events.last?.metrics.parse == .zero)
    }
}
