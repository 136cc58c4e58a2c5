import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import TestSupport
import Testing

/// Sluice's own transport inside TLS, against the loopback server behind a socat relay that passes its bytes on as
/// they are: timeouts, cancellation and redirects end as they do over plain TCP, and nothing is left open.
///
/// The hostile responses run through the same relay in ``HostileServerTests``; nginx's TLS site covers back-pressure,
/// request bodies, cut streams and the soak.
@Suite(.enabled(if: tlsRelayPresent, tlsRelayMissing))
struct TLSRelayTransportTests {
    let server: LoopbackServer
    let relay: TLSRelay
    let performer: SocketRequestPerformer

    init() async throws {
        let pki = try await requirePKI()
        let server = try LoopbackServer()
        self.server = server
        let port = server.url("/").port ?? 0
        relay = try await offThePool { try TLSRelay(upstreamPort: port, chain: pki.good.chain, key: pki.good.key) }
        performer = try tlsPerformer(pki)
    }

    @Test func aServerThatSendsNothingTimesOut() async throws {
        server.route("GET", "/slow", response: LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(20)))
        var raw = Raw(url: relay.url("/slow"))
        raw.timeout = 0.2
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer).perform(raw)
        }
        #expect(error.code == .timedOut)
        #expect(
            error.description == """
                error: the request timed out during the transport stage
                  --> GET \(relay.url("/slow")) [stage: transport]
                   |
                   | caused by: URLError -1001: no byte of the response within the idle timeout of 200.00ms
                """
        )
        try await performer.openDescriptorsGauge.wait(for: "the timed-out connection to close") { $0 == 0 }
    }

    @Test func cancellingTheCallerClosesTheTLSConnection() async throws {
        let arrived = Signal("the request at the server")
        server.route("GET", "/slow") { _ in
            arrived.fire()
            return LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(60))
        }
        let client = APIClient(requestPerformer: performer)
        let task = Task { try await client.perform(Raw(url: relay.url("/slow"))) }
        try await arrived.wait()
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
        try await performer.openDescriptorsGauge.wait(for: "the cancelled connection to close") { $0 == 0 }
        try await #require(performer.liveSSLObjectsGauge).wait(for: "its SSL object to be freed") { $0 == 0 }
        // socat passes the close on: the server sees its connection end.
        try await server.openConnectionsGauge.wait(for: "the server's connection to close") { $0 == 0 }
    }

    @Test func aRelativeRedirectStaysOnTheTLSOrigin() async throws {
        server.route("GET", "/old", response: .redirect(to: "/new"))
        server.route("GET", "/new", response: .text("moved"))
        var request = URLRequest(url: relay.url("/old"))
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let response = try await performer.perform(request)
        #expect(response.body == Data("moved".utf8))
        #expect(response.url == relay.url("/new"))
        // The same origin: the credentials go on, over the same kept-alive connection.
        #expect(server.receivedRequests.last?.header("Authorization") == "Bearer secret")
        #expect(performer.openConnections == 1)
    }

    @Test func aRedirectToPlainHTTPIsRefused() async throws {
        server.route("GET", "/downgrade", response: .redirect(to: server.url("/plain").absoluteString))
        let error = await #expect(throws: SluiceError.self) {
            try await performer.perform(URLRequest(url: relay.url("/downgrade")))
        }
        #expect(error?.message.contains("from https to http") == true, "\(error?.message ?? "no error")")
        #expect(!server.receivedRequests.contains { $0.path == "/plain" })
    }
}
