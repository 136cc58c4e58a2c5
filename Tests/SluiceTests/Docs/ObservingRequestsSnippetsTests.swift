// swift-format-ignore-file: NeverForceUnwrap
// The snippets of the "Observing requests" article and of RequestInstrumentation's documentation, verbatim, run
// against a loopback server.
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct User: Decodable, Sendable {
    var id: Int
}

private struct GetUser: Endpoint {
    static let definition: Definition<GetUser> = Definition(
        server: Server([.production: URL(string: "https://api.example.com/v2")!]),
        method: .get,
        path: "users/\(path: \.id)"
    )
    typealias Response = User
    struct PathComponents { var id: Int }
    var pathComponents: PathComponents
}

private struct SpanPrinter: RequestInstrumentation {
    func begin(_ scope: InstrumentationScope) {}

    func end(_ scope: InstrumentationScope) {
        guard let end = scope.end else { return }
        var depth = 0
        var parent = scope.parent
        while let next = parent {
            depth += 1
            parent = next.parent
        }
        let status = scope.attributes[.httpResponseStatusCode].map { " \($0)" } ?? ""
        let failure = scope.failed ? " failed: \(scope.attributes[.errorType]?.description ?? "?")" : ""
        print(
            String(repeating: "  ", count: depth) + "\(scope.kind) \(scope.name)\(status)\(failure)",
            scope.start.duration(to: end)
        )
    }
}

private struct TraceContextWriter: RequestInstrumentation {
    let traceID: String  // 32 hex digits, from the trace this work belongs to

    func begin(_ scope: InstrumentationScope) {}
    func end(_ scope: InstrumentationScope) {}

    func inject(into headers: inout HTTPHeaders, for attempt: InstrumentationScope) {
        let spanID = String(attempt.id.value, radix: 16)
        let padded = String(repeating: "0", count: max(0, 16 - spanID.count)) + spanID
        headers[Header("traceparent")] = "00-\(traceID)-\(padded)-01"
    }
}

private struct LevelPrinter: RequestInstrumentation {
    func begin(_ scope: InstrumentationScope) {}
    func end(_ scope: InstrumentationScope) {}

    var logLevel: LogRecord.Level? { .debug }

    func log(_ record: LogRecord) {
        let fields = record.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(record.level, record.message, fields)
    }
}

/// The example of LogRecord's documentation.
private struct InfoPrinter: RequestInstrumentation {
    func begin(_ scope: InstrumentationScope) {}
    func end(_ scope: InstrumentationScope) {}

    func log(_ record: LogRecord) {
        guard record.level >= .info else { return }
        let fields = record.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(record.level, record.message, fields)
    }
}

/// The example of RequestInstrumentation's documentation.
private struct AttemptPrinter: RequestInstrumentation {
    func begin(_ scope: InstrumentationScope) {}

    func end(_ scope: InstrumentationScope) {
        guard scope.kind == .attempt, let end = scope.end else { return }
        let status = scope.attributes[.httpResponseStatusCode]?.description ?? "-"
        print(scope.name, status, scope.start.duration(to: end))
    }
}

private struct Fetch: Request {
    typealias ResponseObject = JSON
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

@Suite struct ObservingRequestsSnippetsTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    @Test func installsAnInstrumentationOnTheClient() async throws {
        let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: SpanPrinter())
        let user = try await client.perform(Fetch(url: server.url("/users/7")))
        #expect(user["id"]?.int == 7)
        let printing = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: AttemptPrinter())
        _ = try await printing.perform(Fetch(url: server.url("/users/7")))
    }

    @Test func printsTheRequestsAndThePoolsRecords() async throws {
        let transport = SocketRequestPerformer(instrumentation: LevelPrinter())
        let client = APIClient(requestPerformer: transport, instrumentation: LevelPrinter())
        let user = try await client.perform(Fetch(url: server.url("/users/7")))
        #expect(user["id"]?.int == 7)
        #expect(InfoPrinter().logLevel == nil)
        _ = try await APIClient(requestPerformer: transport, instrumentation: InfoPrinter())
            .perform(Fetch(url: server.url("/users/7")))
    }

    @Test func redactsATextByTheRequestsCredentials() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        request.setValue("Bearer s3cr3t-token", forHTTPHeaderField: "Authorization")
        let error = URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "s3cr3t-token refused"])
        let redactor = Redactor(.default, request: request)
        print(redactor.text(error.localizedDescription))
        #expect(redactor.text(error.localizedDescription) == "<redacted> refused")
    }

    @Test func namesAnEndpointByItsTemplate() {
        #expect(GetUser(pathComponents: .init(id: 7)).urlTemplate == "/v2/users/{id}")
    }

    @Test func writesTheTraceContextIntoEachAttempt() async throws {
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let client = APIClient(
            requestPerformer: SocketRequestPerformer(),
            instrumentation: TraceContextWriter(traceID: traceID)
        )
        _ = try await client.perform(Fetch(url: server.url("/users/7")))
        let sent = try #require(server.receivedRequests.first)
        let traceparent = try #require(HTTPHeaders(sent.headers)[Header("traceparent")])
        #expect(traceparent.hasPrefix("00-\(traceID)-"))
        #expect(traceparent.hasSuffix("-01"))
        #expect(traceparent.count == 55)
    }
}
