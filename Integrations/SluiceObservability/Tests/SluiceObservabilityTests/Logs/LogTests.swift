import Foundation
import InMemoryTracing
import Logging
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// The request's and the pool's log records as a swift-log handler receives them: levels, messages, metadata, and
/// the span's context for a metadata provider.
@Suite struct LogTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    /// The request's records go to its logger, under the context of their scope's span; the pool's to the pool's
    /// logger, under no span, though the connection was opened in a request under the caller's span.
    @Test func writesTheRequestsRecordsApartFromThePools() async throws {
        let backends = Backends(level: .debug)
        let transport = SocketRequestPerformer(instrumentation: backends.instrumentation)
        let client = backends.client(transport)
        let url = server.url("/users/7")
        try await backends.tracer.withSpan("handler") { _ in
            _ = try await client.perform(GetUser(url: url))
        }
        let entries = backends.logs.entries
        #expect(entries.map(\.message) == ["attempt took a connection", "request finished"])
        #expect(entries.map(\.level) == [.debug, .info])

        let handler = try #require(backends.spans(named: "handler").first)
        let request = try #require(backends.spans.first { $0.parentSpanID == handler.spanID })
        let attempt = try #require(backends.spans.first { $0.kind == .client && $0.parentSpanID != nil })
        let finished = entries[1]
        guard case .int64(let id)? = request["sluice.request.id"] else {
            Issue.record("the request's span has no sluice.request.id")
            return
        }
        #expect(finished.metadata["sluice.request.id"] == .stringConvertible(Int(id)))
        #expect(finished.metadata["http.request.method"] == .string("GET"))
        #expect(finished.metadata["url.template"] == .string("/users/{id}"))
        #expect(finished.metadata["http.response.status_code"]?.description == "200")
        #expect(finished.provided["span-id"] == .string(request.spanID))
        let connected = entries[0]
        #expect(connected.metadata["sluice.connection.reused"]?.description == "false")
        #expect(connected.metadata["network.peer.address"] == .string("127.0.0.1"))
        #expect(connected.provided["span-id"] == .string(attempt.spanID))

        let pool = backends.poolLogs.entries
        #expect(pool.map(\.message) == ["connection opened"])
        #expect(pool.first?.level == .debug)
        #expect(pool.first?.metadata["url.scheme"] == .string("http"))
        #expect(pool.first?.metadata["sluice.connection.id"] == connected.metadata["sluice.connection.id"])
        #expect(pool.first?.provided.isEmpty == true)
    }

    /// The loggers' least severe level is the instrumentation's: a logger at `info` is sent no debug record.
    @Test func takesItsLevelFromTheLoggers() async throws {
        let backends = Backends(level: .info)
        #expect(backends.instrumentation.logLevel == .info)
        let transport = SocketRequestPerformer(instrumentation: backends.instrumentation)
        _ = try await backends.client(transport).perform(GetUser(url: server.url("/users/7")))
        #expect(backends.logs.entries.map(\.message) == ["request finished"])
        #expect(backends.poolLogs.entries.isEmpty)
        #expect(ObservabilityInstrumentation().logLevel == nil)
        let quiet = Logger.capturing("quiet", into: CapturingLogHandler.Box(), level: .error)
        let loud = Logger.capturing("loud", into: CapturingLogHandler.Box(), level: .trace)
        #expect(ObservabilityInstrumentation(logger: quiet, poolLogger: loud).logLevel == .trace)
    }

    /// A failed request's record is a warning with its `error.type` and the error's message, the credential it
    /// carried already replaced.
    @Test func writesAFailedRequestAsAWarningWithoutItsCredential() async throws {
        server.route("GET", "/s3cr3t-token") { _ in .text("no", status: 404) }
        let backends = Backends(level: .info)
        let client = backends.client(SocketRequestPerformer())
        let error = await #expect(throws: SluiceError.self) {
            try await client.perform(
                Fetch(url: server.url("/s3cr3t-token"), field: ("Authorization", "Bearer s3cr3t-token"))
            )
        }
        #expect(error?.code == .status)
        let failed = try #require(backends.logs.entries.first { $0.message == "request failed" })
        #expect(failed.level == .warning)
        #expect(failed.metadata["error.type"] == .string("404"))
        let detail = try #require(failed.metadata["sluice.detail"]?.description)
        #expect(detail.contains("404"), "\(detail)")
        for value in failed.metadata.values {
            #expect(!value.description.contains("s3cr3t"), "\(value)")
        }
    }

    /// Every level is swift-log's of the same name.
    @Test(arguments: LogRecord.Level.allCases)
    func mapsEachLevelToSwiftLogs(_ level: LogRecord.Level) {
        let box = CapturingLogHandler.Box()
        let instrumentation = ObservabilityInstrumentation(logger: .capturing("levels", into: box, level: .trace))
        instrumentation.log(LogRecord(level, .requestWarning, activity: .request))
        #expect(box.entries.map(\.level.rawValue) == [level.description])
        #expect(box.entries.first?.message == "request warning")
    }
}
