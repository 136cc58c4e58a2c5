import ClientFixtures
import Foundation
import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The faults a route can inject: closing, resetting, chunking, dripping and delaying a response.
@Suite("LoopbackServer: faults")
struct LoopbackServerFaultTests {
    @Test func closeWithoutResponseFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/gone", response: .text("unsent").injecting(.closeWithoutResponse))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/gone"))
        }
        #expect(server.receivedRequests.first?.path == "/gone")

        let client = try RawClient(port: server.port)
        try client.send("GET /gone HTTP/1.1\r\n\r\n")
        #expect(client.readToEnd().isEmpty)
    }

    @Test func closeMidBodyFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/partial", response: .text("0123456789").injecting(.closeMidBody(afterBytes: 3)))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/partial"))
        }

        let client = try RawClient(port: server.port)
        try client.send("GET /partial HTTP/1.1\r\n\r\n")
        let raw = String(decoding: client.readToEnd(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(raw.contains("Content-Length: 10\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n012"))
    }

    @Test func resetConnectionFailsTheRequest() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/reset", response: .text("unsent").injecting(.resetConnection))

        await #expect(throws: (any Error).self) {
            _ = try await makeSession().data(from: server.url("/reset"))
        }

        let client = try RawClient(port: server.port)
        try client.send("GET /reset HTTP/1.1\r\n\r\n")
        let outcome = client.readOnce()
        #expect(outcome == .failed(ECONNRESET) || outcome == .endOfStream)
    }

    @Test func chunkedFaultDeliversBodyIntact() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let text = String(repeating: "chunk me please ", count: 40)
        server.route("/chunked", response: .text(text).injecting(.chunked(chunkSize: 7)))

        let (data, response) = try await makeSession().data(from: server.url("/chunked"))
        #expect(String(decoding: data, as: UTF8.self) == text)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)

        let client = try RawClient(port: server.port)
        try client.send("GET /chunked HTTP/1.1\r\n\r\n")
        let raw = try client.readResponse()
        #expect(raw.header("Transfer-Encoding") == "chunked")
        #expect(raw.header("Content-Length") == nil)
        #expect(raw.chunkCount == (text.utf8.count + 6) / 7)
        #expect(raw.bodyText == text)
    }

    @Test func dripDeliversBodyIntactAndTakesAtLeastThePauses() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let body = String(repeating: "drip", count: 10)  // 40 bytes: at least 5 sends, so at least 4 pauses.
        let interval = Duration.milliseconds(40)
        server.route("/drip", response: .text(body).injecting(.drip(bytes: 8, every: interval)))

        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await makeSession().data(from: server.url("/drip"))
        let elapsed = clock.now - start

        #expect(String(decoding: data, as: UTF8.self) == body)
        #expect(elapsed >= interval * 4)
    }

    @Test func delayedResponseArrivesAfterTheDelay() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/late", response: .text("late").delayed(by: .milliseconds(200)))

        let clock = ContinuousClock()
        let start = clock.now
        let (data, _) = try await makeSession().data(from: server.url("/late"))

        #expect(clock.now - start >= .milliseconds(200))
        #expect(String(decoding: data, as: UTF8.self) == "late")
    }
}
