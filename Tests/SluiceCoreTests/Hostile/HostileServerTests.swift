import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a hostile server sends, against both performers: each case ends once, with a clear error, in bounded time
/// and memory, and Sluice's own transport never uses the connection again.
///
/// A case that URLSession on Linux cannot pass says why, and checks what the Transports article documents instead.
/// Two cases stop the process inside FoundationNetworking: they are not run on URLSession at all. The compression
/// bomb is in the soak suite, which measures memory; the hostile redirects are in ``RedirectRuleTests``, a dripped
/// head in ``SocketRequestPerformerTests``, resets and bodies cut short in ``TransportTests``. The cases run inside TLS
/// too, through a relay that passes the bytes on as they are.
@Suite struct HostileServerTests {
    /// What URLSession on Linux does with a case.
    enum URLSessionOutcome: Sendable {
        /// It fails, with an error whose description holds the text.
        case fails(String)
        /// It hands over a response with this body, as documented: FoundationNetworking's framing is lenient.
        case accepts(body: String, because: String)
        /// It stops the process: the case is not run on URLSession.
        case stopsTheProcess
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// The response, sent as is after the request has been read, then the connection closed unless kept.
        var pieces: [String]
        var keepOpen = false
        /// The end of the error message from Sluice's own transport.
        var sockets: String
        var urlSession: URLSessionOutcome
    }

    /// 90 fields of 200 bytes: past the byte limit of the tests, within the field limit.
    static let longHead = String(repeating: "X-Pad: \(String(repeating: "p", count: 192))\r\n", count: 90)

    static let cases: [Case] = [
        Case(
            testDescription: "a response smuggled after the end of another",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil"],
            keepOpen: true,
            sockets:
                "the server sent 42 bytes after the end of the response of 2 bytes from ORIGIN, which no request asked for",
            urlSession: .accepts(body: "ok", because: "libcurl reads the first response and leaves the rest")
        ),
        Case(
            testDescription: "two different Content-Length fields",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\nokok"],
            sockets: #"the response has differing Content-Length values "2, 4""#,
            urlSession: .accepts(body: "okok", because: "libcurl takes the last length")
        ),
        Case(
            testDescription: "Content-Length with chunked",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"],
            sockets: "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids",
            urlSession: .accepts(body: "ok", because: "libcurl lets the chunked coding win")
        ),
        Case(
            testDescription: "an oversized head",
            pieces: ["HTTP/1.1 200 OK\r\n\(longHead)Content-Length: 2\r\n\r\nok"],
            sockets: "the response head is larger than the limit of 16384 bytes",
            urlSession: .accepts(body: "ok", because: "libcurl allows a head of up to 100 KB")
        ),
        Case(
            testDescription: "a head that never ends",
            pieces: ["HTTP/1.1 200 OK\r\n\(longHead)"],
            keepOpen: true,
            sockets: "the response head is larger than the limit of 16384 bytes",
            urlSession: .fails("no byte of the response within the idle timeout")
        ),
        Case(
            testDescription: "trailers that never end",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\(longHead)"],
            keepOpen: true,
            sockets: "the trailers are larger than the limit of 16384 bytes",
            urlSession: .stopsTheProcess
        ),
        Case(
            testDescription: "a close in the middle of the head",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Le"],
            sockets: "the server closed the connection in the middle of the response head (ORIGIN)",
            urlSession: .stopsTheProcess
        ),
        Case(
            testDescription: "a body past the size limit, read to the close",
            pieces: ["HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n\(String(repeating: "b", count: 2 << 20))"],
            sockets: "the response body is more than 1048576 bytes, more than the limit of 1048576 bytes",
            urlSession: .fails("more than the limit of 1048576 bytes")
        ),
        Case(
            testDescription: "a chunk size that overflows",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFF\r\nok\r\n0\r\n\r\n"],
            sockets: #"the chunk size "FFFFFFFFFFFFFFFFF" overflows a 64-bit length"#,
            urlSession: .fails("Too long hexadecimal number in chunked-encoding")
        ),
        Case(
            testDescription: "a NUL in a header value",
            pieces: ["HTTP/1.1 200 OK\r\nX-A: 1\u{0}2\r\nContent-Length: 2\r\n\r\nok"],
            sockets: "the value of header X-A holds a control character",
            urlSession: .fails("Nul byte in header")
        ),
        Case(
            testDescription: "a switch to another protocol",
            pieces: ["HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"],
            sockets: "the server switched protocols (101), which this transport does not support",
            urlSession: .fails("Empty reply from server")
        ),
        Case(
            testDescription: "a status line of another protocol",
            pieces: ["SSH-2.0-OpenSSH_9.2\r\n"],
            sockets: #"malformed status line "SSH-2.0-OpenSSH_9.2""#,
            urlSession: .fails("Received HTTP/0.9 when not allowed")
        ),
    ]

    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// Sluice's own transport, with limits small enough to reach quickly, and a time limit around each case so that
    /// a case that hangs fails rather than stalls the run.
    static func socketPerformer(_ kind: TransportKind) -> SocketRequestPerformer {
        kind.makeSocketPerformer(
            configuration: .init(maximumHeaderBytes: 16 << 10, maximumHeadTime: .seconds(10), maximumBodySize: 1 << 20)
        )
    }

    /// Over plain TCP and inside TLS: socat relays the server's bytes as they are, and Sluice's transport ends each
    /// case with the same error, naming the origin it reached.
    @Test(arguments: TransportKind.socketCases, cases)
    func sluicesTransportEndsEachCaseWithAClearError(_ kind: TransportKind, _ hostile: Case) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/hostile",
            response: LoopbackServer.Response(fault: .raw(hostile.pieces, thenClose: !hostile.keepOpen))
        )
        let performer = Self.socketPerformer(kind)
        var request = URLRequest(url: origin.url("/hostile"))
        request.timeoutInterval = 20
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.timeLimited(to: .seconds(60)).perform(request)
        }
        let expected = hostile.sockets.replacingOccurrences(of: "ORIGIN", with: origin.hostAndPort)
        #expect(error?.message.hasSuffix(expected) == true, "\(error?.message ?? "no error")")
        #expect(error?.description.contains("error: ") == true)
        // Never pooled after the error: the next request opens a connection of its own (through the relay, which
        // opens one to the server for each it takes).
        #expect(performer.openConnections == 0)
        server.route("/fine", response: .text("fine"))
        let before = server.acceptedConnections
        #expect(try await performer.perform(URLRequest(url: origin.url("/fine"))).status == .ok)
        #expect(server.acceptedConnections == before + 1)
    }

    @Test(arguments: cases)
    func urlSessionEndsEachCaseAsDocumented(_ hostile: Case) async throws {
        if case .stopsTheProcess = hostile.urlSession {
            // FoundationNetworking: "Fatal error: Transfer completed, but there's no response." (Transports article).
            return
        }
        server.route(
            "/hostile",
            response: LoopbackServer.Response(fault: .raw(hostile.pieces, thenClose: !hostile.keepOpen))
        )
        let performer = TransportKind.urlSession.makePerformer(maximumBodySize: 1 << 20)
        var request = URLRequest(url: server.url("/hostile"))
        request.timeoutInterval = 5
        let outcome: Result<HTTPResponse, any Error>
        do {
            outcome = .success(try await performer.timeLimited(to: .seconds(60)).perform(request))
        } catch {
            outcome = .failure(error)
        }
        switch (hostile.urlSession, outcome) {
        case (.fails(let text), .failure(let error)):
            #expect(String(describing: error).contains(text), "\(error)")
        case (.accepts(let body, _), .success(let response)):
            #expect(String(decoding: response.body, as: UTF8.self) == body)
        case (let expected, let actual):
            Issue.record("expected \(expected), got \(actual)")
        }
    }

    /// A body that drips a few bytes at a time never trips the idle timeout on either transport; the client's
    /// deadline ends it, on the client's clock.
    @Test(arguments: TransportKind.allCases)
    func aBodyThatDripsForEverEndsAtTheClientsDeadline(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let started = Signal("the drip at the server")
        server.route("/drip") { _ in
            started.fire()
            return LoopbackServer.Response(
                body: Data(count: 1 << 20),
                fault: .drip(bytes: 10, every: .milliseconds(100))
            )
        }
        let clock = TestClock()
        let client = APIClient(requestPerformer: kind.makePerformer(), deadline: .seconds(30), clock: clock)
        // An idle timeout far past anything a loaded machine stalls for: only the deadline may end the request.
        let task = Task { try await client.perform(Raw(url: origin.url("/drip"), timeout: 600)) }
        try await started.wait()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .timedOut)
        #expect(error.message == "the request passed its deadline of 30.00s during the transport stage")
    }
}
