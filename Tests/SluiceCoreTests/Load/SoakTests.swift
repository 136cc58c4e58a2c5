import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Whether the 10,000-request soak runs: minutes of the machine's two cores, so `.ci/run` asks for it and a plain
/// `swift test` does not.
let soakRequested = ProcessInfo.processInfo.environment["SLUICE_SOAK"] == "1"

/// Sluice under load, against the loopback server: many requests at once, every kind of outcome, and no memory or
/// task left behind.
@Suite(.serialized) struct SoakTests {
    /// What one request of the soak does, chosen by its number.
    enum Kind: CaseIterable {
        case success, serverError, slow, dropped, cancelled

        init(_ number: Int) {
            switch number % 10 {
            case 0...5: self = .success
            case 6: self = .serverError
            case 7: self = .slow
            case 8: self = .dropped
            default: self = .cancelled
            }
        }
    }

    struct Numbered: Decodable, Sendable {
        var n: Int
    }

    struct Call: Request {
        typealias ResponseObject = Numbered
        var url: URL
        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    /// How one request ended: its value, or its error's code.
    enum Ending: Equatable {
        case value(Int)
        case failure(SluiceError.Code)
    }

    /// The requests that reach the server's `/hang/*` route, so that a request to be cancelled is cancelled once it is
    /// in flight.
    final class Hanging: Sendable {
        /// Fired by every request that reaches the route.
        let all = Signal("requests at /hang/*")
        private let awaited = Locked<[Int: Signal]>([:])

        /// Returns a signal fired when request `number` next reaches the route, replacing any earlier one for that
        /// number.
        func signal(for number: Int) -> Signal {
            let signal = Signal("request \(number) at /hang/*")
            awaited.withLock { $0[number] = signal }
            return signal
        }

        /// Notes that request `number` reached the route, and lets go of its signal.
        func arrived(_ number: Int?) {
            all.fire()
            if let number {
                awaited.withLock { $0.removeValue(forKey: number) }?.fire()
            }
        }
    }

    static func install(on server: LoopbackServer, hanging: Hanging) {
        server.route("GET", "/ok/*") { request in
            .json(#"{"n": \#(request.path.split(separator: "/").last ?? "-1")}"#)
        }
        server.route("GET", "/fail/*", response: .json(#"{"error": "boom"}"#, status: 500))
        server.route("GET", "/slow/*") { request in
            LoopbackServer.Response.json(#"{"n": \#(request.path.split(separator: "/").last ?? "-1")}"#)
                .delayed(by: .milliseconds(150))
        }
        server.route("GET", "/drop/*", response: LoopbackServer.Response(fault: .closeWithoutResponse))
        server.route("GET", "/hang/*") { request in
            hanging.arrived(request.path.split(separator: "/").last.flatMap { Int($0) })
            return LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(30))
        }
    }

    /// The path of request `number` on a server with the routes of ``install(on:hanging:)``.
    static func path(for number: Int) -> String {
        switch Kind(number) {
        case .success: "/ok/\(number)"
        case .serverError: "/fail/\(number)"
        case .slow: "/slow/\(number)"
        case .dropped: "/drop/\(number)"
        case .cancelled: "/hang/\(number)"
        }
    }

    static func expected(for number: Int) -> Ending {
        switch Kind(number) {
        case .success, .slow: .value(number)
        case .serverError: .failure(.status)
        case .dropped: .failure(.transport)
        case .cancelled: .failure(.cancelled)
        }
    }

    /// Runs requests `range` through `client`, `width` at a time, and records how each ended, once.
    ///
    /// - Parameters:
    ///   - range: The numbers of the requests.
    ///   - width: How many run at once.
    ///   - client: The client that sends them.
    ///   - url: The URL of request `number`: ``path(for:)`` on the server, or on a front of it.
    ///   - hanging: The requests at the server's `/hang/*` route.
    ///   - endings: Where each request's ending is recorded.
    static func run(
        _ range: Range<Int>,
        width: Int,
        client: APIClient,
        url: @escaping @Sendable (Int) -> URL,
        hanging: Hanging,
        endings: Locked<[Int: Ending]>
    ) async {
        await withTaskGroup(of: Void.self) { group in
            var next = range.lowerBound
            func add() {
                let number = next
                next += 1
                group.addTask {
                    let ending: Ending
                    let call = Call(url: url(number))
                    if Kind(number) == .cancelled {
                        // Cancelled once at the server; one that ends before it gets there ends as it did, and fails
                        // the check of its ending.
                        let ready = hanging.signal(for: number)
                        let task = Task {
                            defer { ready.fire() }
                            return try await client.perform(call)
                        }
                        try? await ready.wait()
                        task.cancel()
                        do {
                            ending = .value(try await task.value.n)
                        } catch let error as SluiceError {
                            ending = .failure(error.code)
                        } catch {
                            ending = .failure(.transport)
                        }
                    } else {
                        do throws(SluiceError) {
                            ending = .value(try await client.perform(call).n)
                        } catch {
                            ending = .failure(error.code)
                        }
                    }
                    endings.withLock { endings in
                        precondition(endings[number] == nil, "request \(number) ended twice")
                        endings[number] = ending
                    }
                }
            }
            for _ in 0..<min(width, range.count) {
                add()
            }
            while await group.next() != nil {
                if next < range.upperBound {
                    add()
                }
            }
        }
    }

    /// The sanitizer this test binary was built with, if any, found by its runtime's entry point.
    static let sanitizer: String? = {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(process) }
        return [("address", "__asan_init"), ("thread", "__tsan_init")].first { dlsym(process, $0.1) != nil }?.0
    }()

    /// The resident memory of this process, from `/proc/self/statm`; `nil` where there is none.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Over URLSession, Sluice's own transport, and Sluice's own inside TLS through a relay that passes the server's
    /// faults on as they are (a dropped connection ends in the relay's `close_notify`, a cancelled request's closes
    /// the relay's connection to the server).
    @Test(
        .enabled(if: soakRequested, "the soak runs where SLUICE_SOAK=1 is set, as .ci/run sets it"),
        arguments: TransportKind.allCases
    )
    func tenThousandRequestsSixtyFourAtATime(_ kind: TransportKind) async throws {
        let server = try LoopbackServer(requestLogLimit: 100)
        let origin = try await kind.origin(of: server)
        let hanging = Hanging()
        Self.install(on: server, hanging: hanging)
        let performer: any RequestPerformer
        switch kind {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 64
            performer = NetworkRequestPerformer(configuration: configuration)
        case .sockets, .socketsOverTLS:
            performer = kind.makeSocketPerformer(configuration: .init(maximumConnectionsPerOrigin: 64))
        }
        let client = APIClient(requestPerformer: performer)

        // Under a sanitizer, Sluice's own transport runs 1,000: it is fast enough that 10,000 at 64 at once, with a
        // connection closed and a server thread ended for every cancelled or dropped request, starve the tests
        // running beside it for seconds.
        let total = kind != .urlSession && Self.sanitizer != nil ? 1_000 : 10_000
        let warmUp = Locked<[Int: Ending]>([:])
        let url = { @Sendable number in origin.url(Self.path(for: number)) }
        await Self.run(0..<2_000, width: 64, client: client, url: url, hanging: hanging, endings: warmUp)
        let afterWarmUp = Self.residentBytes()

        let endings = Locked<[Int: Ending]>([:])
        let start = ContinuousClock.now
        await Self.run(0..<total, width: 64, client: client, url: url, hanging: hanging, endings: endings)
        let elapsed = ContinuousClock.now - start
        let afterRun = Self.residentBytes()

        let results = endings.withLock { $0 }
        #expect(results.count == total, "every request ended")
        var wrong: [String] = []
        var byKind: [String: Int] = [:]
        for number in 0..<total {
            let ending = results[number]
            if ending != Self.expected(for: number) {
                wrong.append("\(number): expected \(Self.expected(for: number)), got \(String(describing: ending))")
            }
            switch ending {
            case .value?: byKind["success", default: 0] += 1
            case .failure(let code)?: byKind["\(code)", default: 0] += 1
            case nil: byKind["missing", default: 0] += 1
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) requests ended wrongly, first: \(wrong.prefix(5))")
        #expect(requestsInFlight(performer) == 0)
        // Both transports send a request again on a new connection when a reused one closes without an answer;
        // libcurl does for every method, Sluice's own transport for idempotent ones (all of these are GETs).
        #expect(server.requestCount >= total + 2_000)
        if let afterWarmUp, var afterRun {
            var growth = Double(afterRun - afterWarmUp) / Double(afterWarmUp)
            // A sanitizer's allocator holds freed memory back (in quarantine, in shadow memory) by design; the bound
            // is checked in the plain build, where resident memory reflects what Sluice keeps.
            if Self.sanitizer == nil {
                // Resident memory is the whole process's, and the suites running beside this one can raise its high
                // water mark once. A leak grows on every run: when the first passes the bound, a second run of the
                // same requests must stay within it.
                if growth > 0.10, let before = Self.residentBytes() {
                    let again = Locked<[Int: Ending]>([:])
                    await Self.run(0..<total, width: 64, client: client, url: url, hanging: hanging, endings: again)
                    afterRun = Self.residentBytes() ?? afterRun
                    growth = Double(afterRun - before) / Double(before)
                }
                #expect(
                    growth <= 0.10,
                    """
                    resident memory grew by \(Int(growth * 100))% (to \(afterRun) bytes, from \(afterWarmUp) after the \
                    warm-up) over \(total) requests at 64 concurrent in \(elapsed), on a second run too when the first \
                    passed the bound: \(byKind.sorted { $0.key < $1.key })
                    """
                )
            }
        }
        if let performer = performer as? SocketRequestPerformer {
            // Nothing leaks: once the idle connections are closed, every descriptor is closed and, inside TLS, every
            // SSL object is freed.
            #expect(performer.openConnections <= 64)
            performer.closeIdleConnections()
            try await performer.openDescriptorsGauge.wait(for: "every descriptor to close") { $0 == 0 }
            if kind == .socketsOverTLS {
                let sslObjects = try #require(performer.liveSSLObjectsGauge)
                try await sslObjects.wait(for: "every SSL object to be freed") { $0 == 0 }
                // Thousands of connections shook hands, and no session piled up in OpenSSL's own store.
                #expect(performer.sessionsStoredByOpenSSL == 0)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func leavesNoTaskContinuationOrConnectionBehindACancelledRequest(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        let origin = try await kind.origin(of: server)
        let hanging = Hanging()
        Self.install(on: server, hanging: hanging)
        let base = kind.makePerformer()
        let deduplicated = base.retrying(RetryingPerformer.Policy(baseDelay: .milliseconds(1), deadline: nil))
            .deduplicated()
        let client = APIClient(requestPerformer: deduplicated, deadline: .seconds(60))
        let tasks = (0..<8).map { number in
            Task { try await client.perform(Call(url: origin.url("/hang/\(number % 2)"))) }
        }
        try await hanging.all.wait(count: 2)
        #expect(requestsInFlight(base) == 2)
        #expect(deduplicated.callsInFlight == 2)
        for task in tasks {
            task.cancel()
        }
        for task in tasks {
            let error = try await #require(throws: SluiceError.self) { try await task.value }
            #expect(error.code == .cancelled)
        }
        // Every URLSession task has completed, every continuation was resumed, every shared call has ended and the
        // server has seen every connection close. A wait that runs out is reported by the expectations below, which
        // name the count that did not reach zero.
        try? await requestsInFlightGauge(base).wait(for: "every transfer to end") { $0 == 0 }
        try? await deduplicated.callsInFlightGauge.wait(for: "every shared call to end") { $0 == 0 }
        try? await server.openConnectionsGauge.wait(for: "every connection to close") { $0 == 0 }
        #expect(requestsInFlight(base) == 0)
        #expect(deduplicated.callsInFlight == 0)
        #expect(server.openConnections == 0)
    }

    /// Sluice's own transport over TLS, with nginx in front of the loopback server: thousands of requests, 64 at a
    /// time, successes, server errors, slow answers, dropped connections (which nginx answers with 502) and requests
    /// cancelled in flight, each end as they should; nothing is left in flight, and the connections stay within the
    /// limit and are reused.
    ///
    /// In this suite, which runs one test at a time, so that its load does not weigh on the memory measured above.
    @Test(.enabled(if: tlsPeersPresent, tlsPeersMissing))
    func thousandsOfRequestsOverTLSSixtyFourAtATime() async throws {
        let pki = try await requirePKI()
        let upstream = try LoopbackServer(requestLogLimit: 100)
        let hanging = SoakTests.Hanging()
        SoakTests.install(on: upstream, hanging: hanging)
        let server = try await startTLSServer(
            .init(chain: pki.good.chain, key: pki.good.key, upstream: upstream.baseURL)
        )
        let base = try server.httpsURL("/proxy")
        let performer = try tlsPerformer(pki)
        let client = APIClient(requestPerformer: performer)
        let total = SoakTests.sanitizer == nil ? 2_000 : 500
        let endings = Locked<[Int: SoakTests.Ending]>([:])
        await SoakTests.run(
            0..<total,
            width: 64,
            client: client,
            url: { number in
                base.appendingPathComponent(SoakTests.path(for: number))
            },
            hanging: hanging,
            endings: endings
        )
        let results = endings.withLock { $0 }
        let wrong = (0..<total).filter { number in
            let expected = SoakTests.Kind(number) == .dropped ? .failure(.status) : SoakTests.expected(for: number)
            return results[number] != expected
        }
        #expect(
            wrong.isEmpty,
            "\(wrong.count) requests ended wrongly, first: \(wrong.prefix(5).map { ($0, results[$0]) })"
        )
        try await performer.requestsInFlightGauge.wait(for: "every transfer to end") { $0 == 0 }
        #expect(performer.openConnections <= 64)
        #expect(performer.idleConnections == performer.openConnections)
        let response = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
        #expect(response.body == NginxServer.smallJSON)
        // Nothing leaks: once the idle connections are closed, every descriptor is closed and every SSL object freed.
        let sslObjects = try #require(performer.liveSSLObjectsGauge)
        #expect(sslObjects.value == performer.openConnections)
        performer.closeIdleConnections()
        try await performer.openDescriptorsGauge.wait(for: "every descriptor to close") { $0 == 0 }
        try await sslObjects.wait(for: "every SSL object to be freed") { $0 == 0 }
    }
}
