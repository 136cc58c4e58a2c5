import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Records the scopes, log records and pool measurements it receives, from the level it is made with.
private final class LogRecorder: RequestInstrumentation {
    let logLevel: LogRecord.Level?
    /// Fired at each record of the pool's.
    let poolRecord = Signal("a record of the pool's")
    private let recorded = Locked<
        (scopes: [InstrumentationScope], records: [LogRecord], measurements: [PoolMeasurement])
    >(
        ([], [], [])
    )

    init(logLevel: LogRecord.Level?) {
        self.logLevel = logLevel
    }

    func begin(_ scope: InstrumentationScope) {
        recorded.withLock { $0.scopes.append(scope) }
    }

    func end(_ scope: InstrumentationScope) {}

    func log(_ record: LogRecord) {
        recorded.withLock { $0.records.append(record) }
        if record.activity == .pool {
            poolRecord.fire()
        }
    }

    func record(_ measurement: PoolMeasurement) {
        recorded.withLock { $0.measurements.append(measurement) }
    }

    var scopes: [InstrumentationScope] { recorded.withLock { $0.scopes } }
    var records: [LogRecord] { recorded.withLock { $0.records } }
    var measurements: [PoolMeasurement] { recorded.withLock { $0.measurements } }

    func records(_ message: LogRecord.Message) -> [LogRecord] {
        records.filter { $0.message == message }
    }

    /// The connections open in a state, as the sum of the changes reported for it.
    func open(_ state: String) -> Int {
        measurements.filter { $0.attributes[.httpConnectionState] == .string(state) }.reduce(0) { $0 + $1.change }
    }
}

/// Forwards to another performer, noting a warning that names a credential the request carries.
private struct WarningPerformer: RequestPerformer {
    let next: any RequestPerformer

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        RequestContext.current?.noteWarning("the token s3cr3t-token was refused once")
        return try await next.perform(request)
    }
}

@Suite struct InstrumentationLogTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/users/7") { _ in .json(#"{"id": 7}"#) }
    }

    /// The request's own records: the connection its attempt took, then its outcome, each with its scope and the
    /// request's id.
    @Test func logsTheRequestsOwnRecordsWithTheirScopes() async throws {
        let recorder = LogRecorder(logLevel: .trace)
        let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: recorder)
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        #expect(recorder.records.map(\.message) == [.attemptConnected, .requestFinished])
        let request = try #require(recorder.scopes.first { $0.kind == .request })
        let attempt = try #require(recorder.scopes.first { $0.kind == .attempt })
        let id = try #require(request.attributes[.requestID])

        let connected = try #require(recorder.records(.attemptConnected).first)
        #expect(connected.level == .debug)
        #expect(connected.activity == .request)
        #expect(connected.scope === attempt)
        #expect(connected.metadata[.requestID] == id)
        #expect(connected.metadata[.connectionReused] == .bool(false))
        #expect(connected.metadata[.connectionID] != nil)
        #expect(connected.metadata[.serverPort] == .int(server.port))

        let finished = try #require(recorder.records(.requestFinished).first)
        #expect(finished.level == .info)
        #expect(finished.scope === request)
        #expect(finished.metadata[.requestID] == id)
        #expect(finished.metadata[.httpResponseStatusCode] == .int(200))
        #expect(finished.metadata[.urlFull] == .string("http://127.0.0.1:\(server.port)/users/7"))
        #expect(finished.metadata[.detail] == nil)
    }

    /// Records below the instrumentation's level are not sent; an instrumentation with no level gets none.
    @Test(arguments: [(LogRecord.Level?.some(.info), 1), (.some(.warning), 0), (nil, 0)])
    func sendsOnlyTheRecordsAtItsLevel(level: LogRecord.Level?, expected: Int) async throws {
        let recorder = LogRecorder(logLevel: level)
        let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: recorder)
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        #expect(recorder.records.count == expected)
        #expect(recorder.records.allSatisfy { $0.message == .requestFinished })
    }

    /// A warning's text and a failure's message leave with the request's credentials replaced.
    @Test func redactsTheWarningsAndTheFailureByValue() async throws {
        let recorder = LogRecorder(logLevel: .warning)
        let client = APIClient(
            requestPerformer: WarningPerformer(next: SocketRequestPerformer()),
            instrumentation: recorder
        )
        let closed = try LoopbackServer()
        let url = closed.url("/users/7")
        closed.stop()
        await #expect(throws: SluiceError.self) {
            _ = try await client.perform(TemplatedGet(url: url, authorization: "Bearer s3cr3t-token"))
        }
        #expect(recorder.records.map(\.message) == [.requestWarning, .requestFailed])
        let warning = try #require(recorder.records(.requestWarning).first)
        #expect(warning.level == .warning)
        #expect(warning.metadata[.detail] == .string("the token <redacted> was refused once"))
        let failed = try #require(recorder.records(.requestFailed).first)
        #expect(failed.level == .warning)
        #expect(failed.metadata[.errorType] == .string("transport"))
        guard case .string(let detail)? = failed.metadata[.detail] else {
            Issue.record("no detail in \(failed.metadata)")
            return
        }
        #expect(!detail.isEmpty)
        #expect(!detail.contains("s3cr3t"), "\(detail)")
    }

    /// The pool reports its open and idle connections per origin as changes, and the connections it opens and
    /// closes as records of its own, apart from the request's.
    @Test func reportsThePoolsConnectionsToItsOwnInstrumentation() async throws {
        let pool = LogRecorder(logLevel: .debug)
        let requests = LogRecorder(logLevel: .debug)
        let performer = SocketRequestPerformer(instrumentation: pool)
        let client = APIClient(requestPerformer: performer, instrumentation: requests)
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        #expect(pool.open("active") == 0)
        #expect(pool.open("idle") == 1)
        _ = try await client.perform(TemplatedGet(url: server.url("/users/7")))
        #expect(pool.open("active") == 0)
        #expect(pool.open("idle") == 1)
        let changes = pool.measurements.map { "\($0.attributes[.httpConnectionState] ?? .string("-")) \($0.change)" }
        #expect(changes == ["active 1", "active -1", "idle 1", "active 1", "idle -1", "active -1", "idle 1"])
        let measurement = try #require(pool.measurements.first)
        #expect(measurement.instrument == .openConnections)
        #expect(measurement.attributes[.serverAddress] == .string("127.0.0.1"))
        #expect(measurement.attributes[.serverPort] == .int(server.port))
        #expect(measurement.attributes[.urlScheme] == .string("http"))

        let opened = try #require(pool.records(.connectionOpened).first)
        #expect(pool.records.map(\.message) == [.connectionOpened])
        #expect(opened.activity == .pool)
        #expect(opened.scope == nil)
        #expect(opened.metadata[.networkProtocolVersion] == .string("1.1"))
        let taken = requests.records(.attemptConnected).map { $0.metadata[.connectionID] }
        #expect(taken == [opened.metadata[.connectionID], opened.metadata[.connectionID]])
        #expect(requests.measurements.isEmpty)
        #expect(requests.records.allSatisfy { $0.activity == .request })

        performer.closeIdleConnections()
        #expect(pool.open("idle") == 0)
        let closed = try #require(pool.records(.idleConnectionsClosed).first)
        #expect(closed.metadata[.connectionCount] == .int(1))
    }

    /// An idle connection closed after the idle timeout is the pool's record, and leaves the idle count.
    @Test func reportsAnIdleConnectionEvicted() async throws {
        let pool = LogRecorder(logLevel: .debug)
        let performer = SocketRequestPerformer(
            configuration: .init(idleConnectionTimeout: .milliseconds(20)),
            instrumentation: pool
        )
        _ = try await APIClient(requestPerformer: performer).perform(TemplatedGet(url: server.url("/users/7")))
        try await pool.poolRecord.wait(count: 2)
        #expect(pool.records.map(\.message) == [.connectionOpened, .idleConnectionEvicted])
        #expect(pool.open("idle") == 0)
        #expect(pool.open("active") == 0)
        #expect(pool.records(.idleConnectionEvicted).first?.metadata[.connectionID] != nil)
    }

    /// A connection the server closes after its response is the pool's record of a closed connection.
    @Test func reportsAConnectionClosedAfterItsExchange() async throws {
        server.route("GET", "/close") { _ in
            LoopbackServer.Response(status: 200, headers: [.init("Connection", "close")], body: Data("{}".utf8))
        }
        let pool = LogRecorder(logLevel: .debug)
        let performer = SocketRequestPerformer(instrumentation: pool)
        _ = try await APIClient(requestPerformer: performer).perform(TemplatedGet(url: server.url("/close")))
        #expect(pool.records.map(\.message) == [.connectionOpened, .connectionClosed])
        #expect(pool.open("idle") == 0)
        #expect(pool.open("active") == 0)
    }
}
