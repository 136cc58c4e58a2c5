import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

/// What only Sluice's own transport does: its pool, its strictness about HTTP/1.1, its limits, Unix sockets and the
/// fallback; the behaviour it shares with URLSession's is in ``TransportTests``.
///
/// Each test that talks to the loopback server runs over plain TCP and inside TLS, through a relay that passes the
/// server's bytes on as they are; the few that do not (other schemes, a port nothing listens on, a Unix socket, name
/// resolution) say so.
@Suite struct SocketRequestPerformerTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// A response that breaks HTTP/1.1 or a limit, and the words the error must use.
    struct BadResponse: Sendable, CustomTestStringConvertible {
        var name: String
        var pieces: [String]
        var expected: String
        var configuration = SocketRequestPerformer.Configuration()

        var testDescription: String { name }
    }

    static let badResponses: [BadResponse] = [
        BadResponse(
            name: "a status line that is not HTTP",
            pieces: ["SSH-2.0-OpenSSH_9.2\r\n\r\n"],
            expected: #"malformed status line "SSH-2.0-OpenSSH_9.2""#
        ),
        BadResponse(
            name: "a status code that is not a number",
            pieces: ["HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n"],
            expected: #"malformed status line "HTTP/1.1 2x0 OK""#
        ),
        BadResponse(
            name: "HTTP/2 on an HTTP/1.1 connection",
            pieces: ["HTTP/2 200\r\n\r\n"],
            expected: #"unsupported HTTP version in status line "HTTP/2 200""#
        ),
        BadResponse(
            name: "a header without a colon",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length 5\r\n\r\nhello"],
            expected: #"a header line has no colon: "Content-Length 5""#
        ),
        BadResponse(
            name: "a folded header",
            pieces: ["HTTP/1.1 200 OK\r\nX-Long: a\r\n b\r\nContent-Length: 0\r\n\r\n"],
            expected: #"a header field is folded onto a continuation line (" b"), which HTTP/1.1 forbids"#
        ),
        BadResponse(
            name: "both Content-Length and Transfer-Encoding",
            pieces: [
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            ],
            expected: "the response has both Content-Length and Transfer-Encoding, which RFC 9112 forbids"
        ),
        BadResponse(
            name: "a negative length",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"],
            expected: #"invalid Content-Length "-1""#
        ),
        BadResponse(
            name: "an overflowing length",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"],
            expected: #"invalid Content-Length "99999999999999999999""#
        ),
        BadResponse(
            name: "differing lengths",
            pieces: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"],
            expected: #"the response has differing Content-Length values "5, 6""#
        ),
        BadResponse(
            name: "a chunk size in bad hex",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"],
            expected: #"invalid chunk size "zz": not a hexadecimal number"#
        ),
        BadResponse(
            name: "an overflowing chunk size",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n"],
            expected: #"the chunk size "fffffffffffffffff" overflows a 64-bit length"#
        ),
        BadResponse(
            name: "chunk data longer than its size",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello world\r\n0\r\n\r\n"],
            expected: "chunk data was not followed by a line end"
        ),
        BadResponse(
            name: "a transfer coding other than chunked",
            pieces: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"],
            expected: #"unsupported Transfer-Encoding "gzip"; only chunked is"#
        ),
        BadResponse(
            name: "a switch of protocols",
            pieces: ["HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"],
            expected: "the server switched protocols (101), which this transport does not support"
        ),
        BadResponse(
            name: "a status line over the limit",
            pieces: ["HTTP/1.1 200 " + String(repeating: "O", count: 100) + "\r\n\r\n"],
            expected: "the status line is longer than the limit of 64 bytes",
            configuration: .init(maximumStatusLineLength: 64)
        ),
        BadResponse(
            name: "more header fields than the limit",
            pieces: ["HTTP/1.1 200 OK\r\n" + (0..<6).map { "X-\($0): v\r\n" }.joined() + "\r\n"],
            expected: "the response has more than the limit of 5 header fields",
            configuration: .init(maximumHeaderCount: 5)
        ),
        BadResponse(
            name: "a head over the size limit",
            pieces: ["HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "v", count: 300) + "\r\n\r\n"],
            expected: "the response head is larger than the limit of 256 bytes",
            configuration: .init(maximumHeaderBytes: 256)
        ),
    ]

    /// Also from a task on one of the transport's loops, where the response is read on the task's own thread.
    @Test(arguments: TransportKind.socketCases, badResponses)
    func aResponseThatBreaksTheProtocolFailsNamingWhatWasWrong(_ kind: TransportKind, _ bad: BadResponse) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/bad", response: LoopbackServer.Response(fault: .raw(bad.pieces)))
        for onALoop in [false, true] {
            let performer = kind.makeSocketPerformer(configuration: bad.configuration)
            let task = Task.starting(onALoop: onALoop) {
                try await performer.perform(URLRequest(url: origin.url("/bad")))
            }
            let error = await #expect(throws: SluiceError.self) { _ = try await task.value }
            #expect(error?.code == .transport)
            #expect(
                error?.message == "the response from \(origin.hostAndPort) is not valid HTTP/1.1: \(bad.expected)"
            )
            #expect((error?.underlyingError as? URLError)?.code == .badServerResponse)
            // The connection is closed, not pooled.
            #expect(performer.openConnections == 0)
        }
    }

    /// Responses cut short, or with more than they announce, and the words the error uses.
    @Test(
        arguments: TransportKind.socketCases,
        [
            (
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                "the server closed the connection after 3 of 10 bytes of the body"
            ),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
                "the server closed the connection after 3 bytes of a chunked body, before its last chunk"
            ),
            ("HTTP/1.1 200 OK\r\nContent-", "the server closed the connection in the middle of the response head"),
        ]
    )
    func aResponseCutShortFailsSayingHowFarItCame(
        _ kind: TransportKind,
        _ cut: (raw: String, expected: String)
    ) async throws {
        let (raw, expected) = cut
        let origin = try await kind.origin(of: server)
        server.route("/cut", response: LoopbackServer.Response(fault: .raw([raw])))
        let performer = kind.makeSocketPerformer()
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: origin.url("/cut")))
        }
        #expect(error?.message == "\(expected) (\(origin.hostAndPort))")
        #expect((error?.underlyingError as? URLError)?.code == .networkConnectionLost)
        #expect(performer.openConnections == 0)
    }

    @Test(arguments: TransportKind.socketCases)
    func aResponseWithMoreBytesThanAnnouncedFails(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/extra",
            response: LoopbackServer.Response(fault: .raw(["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"]))
        )
        let performer = kind.makeSocketPerformer()
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: origin.url("/extra")))
        }
        #expect(
            error?.message
                == "the server sent 5 bytes after the end of the response of 2 bytes from \(origin.hostAndPort), which no request asked for"
        )
        #expect(performer.openConnections == 0)
    }

    @Test(arguments: TransportKind.socketCases)
    func aServerThatSendsNothingTimesOutOnce(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/silent",
            response: LoopbackServer.Response(fault: .raw([], thenClose: false)).delayed(by: .seconds(30))
        )
        var request = URLRequest(url: origin.url("/silent"))
        request.timeoutInterval = 0.2
        // Also from a task on one of the loops, whose thread fires the timeout.
        for onALoop in [false, true] {
            let performer = kind.makeSocketPerformer()
            let task = Task.starting(onALoop: onALoop) { [request] in try await performer.perform(request) }
            let error = await #expect(throws: URLError.self) { _ = try await task.value }
            #expect(error?.code == .timedOut)
            #expect(error?.localizedDescription == "no byte of the response within the idle timeout of 200.00ms")
            #expect(performer.openConnections == 0)
        }
    }

    /// A head dripped a byte at a time never lets the idle timeout fire; the limit on the whole head does.
    ///
    /// The head never ends (a field value that grows by a byte every 50 ms for 20 s), so that a client whose loop a
    /// busy machine holds up still sees it unfinished when it reads its first bytes.
    @Test(arguments: TransportKind.socketCases)
    func aHeadThatDripsFailsAtTheHeadTimeLimit(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let drip = ["HTTP/1.1 200 OK\r\nX-Drip: "] + Array(repeating: "a", count: 400)
        server.route(
            "/drip",
            response: LoopbackServer.Response(fault: .raw(drip, pause: .milliseconds(50), thenClose: false))
        )
        let performer = kind.makeSocketPerformer(configuration: .init(maximumHeadTime: .milliseconds(300)))
        var request = URLRequest(url: origin.url("/drip"))
        request.timeoutInterval = 30
        let error = await #expect(throws: URLError.self) { _ = try await performer.perform(request) }
        #expect(error?.code == .timedOut)
        #expect(
            error?.localizedDescription == "the response head took longer than the limit of 300.00ms to arrive whole"
        )
        #expect(performer.openConnections == 0)
        // Through a client, the timeout is reported as such, in the transport stage.
        let failure = await #expect(throws: SluiceError.self) {
            _ = try await APIClient(requestPerformer: performer).perform(Raw(url: origin.url("/drip")))
        }
        #expect(failure?.code == .timedOut)
        #expect(failure?.stage == .transport)
    }

    /// A server that never ends its trailers is stopped at the head's byte limit, which trailers share.
    @Test(arguments: TransportKind.socketCases)
    func endlessTrailersFailAtTheLimit(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let trailers = String(repeating: "X-T: \(String(repeating: "1", count: 100))\r\n", count: 10_000)
        server.route(
            "/trailers",
            response: LoopbackServer.Response(
                fault: .raw(["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", trailers])
            )
        )
        let performer = kind.makeSocketPerformer(configuration: .init(maximumHeaderBytes: 4 << 10))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: origin.url("/trailers")))
        }
        #expect(error?.message.hasSuffix("the trailers are larger than the limit of 4096 bytes") == true)
        #expect(performer.openConnections == 0)
    }

    /// What real servers send and HTTP/1.1 allows: interim responses, bodies read to the close, HTTP/1.0, trailers,
    /// bare LF line ends, extensions on chunk sizes.
    @Test(
        arguments: TransportKind.socketCases,
        [
            ["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
            ["HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
            ["HTTP/1.1 200 OK\r\n\r\no", "k"],
            ["HTTP/1.0 200 OK\r\n\r\nok"],
            [
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;name=value\r\no\r\n1\r\nk\r\n0\r\nX-Trailer: t\r\n\r\n"
            ],
            ["HTTP/1.1 200 OK\nContent-Length: 2\n\nok"],
            ["HTT", "P/1.1 2", "00 OK\r", "\nContent-Le", "ngth: 2\r\n\r", "\no", "k"],
        ]
    )
    func readsWhatHTTPAllows(_ kind: TransportKind, _ pieces: [String]) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/odd", response: LoopbackServer.Response(fault: .raw(pieces, pause: .milliseconds(5))))
        let response = try await kind.makeSocketPerformer().perform(URLRequest(url: origin.url("/odd")))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == "ok")
    }

    @Test(arguments: TransportKind.socketCases)
    func keepsOneConnectionAliveForRequestsInTurn(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/n", response: .text("n"))
        let performer = kind.makeSocketPerformer()
        for _ in 0..<20 {
            _ = try await performer.perform(URLRequest(url: origin.url("/n")))
        }
        #expect(server.acceptedConnections == 1)
        #expect(performer.openConnections == 1)
        #expect(performer.idleConnections == 1)
    }

    @Test(arguments: TransportKind.socketCases)
    func opensNoMoreConnectionsThanTheLimitPerOrigin(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/slow", response: LoopbackServer.Response.text("slow").delayed(by: .milliseconds(50)))
        let performer = kind.makeSocketPerformer(configuration: .init(maximumConnectionsPerOrigin: 3))
        let most = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    _ = try await performer.perform(URLRequest(url: origin.url("/slow")))
                    most.withLock { $0 = max($0, performer.openConnections) }
                }
            }
            try await group.waitForAll()
        }
        #expect(most.withLock { $0 } <= 3)
        #expect(server.acceptedConnections == 3)
        #expect(server.requestCount == 12)
    }

    /// The keep-alive race: the server closes a kept-alive connection as the next request goes out on it.
    @Test(arguments: TransportKind.socketCases, ["GET", "POST"])
    func sendsAnIdempotentRequestAgainWhenAKeptAliveConnectionWasClosed(
        _ kind: TransportKind,
        _ method: String
    ) async throws {
        let origin = try await kind.origin(of: server)
        let calls = Locked(0)
        server.route("/flaky") { _ in
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            // The second request, the first on the kept-alive connection, finds it closed.
            return call == 2 ? LoopbackServer.Response(fault: .closeWithoutResponse) : .text("fine")
        }
        let performer = kind.makeSocketPerformer()
        var request = URLRequest(url: origin.url("/flaky"))
        request.httpMethod = method
        _ = try await performer.perform(request)
        if method == "GET" {
            let response = try await performer.perform(request)
            #expect(String(decoding: response.body, as: UTF8.self) == "fine")
            #expect(calls.withLock { $0 } == 3)
            #expect(server.acceptedConnections == 2)
        } else {
            let error = await #expect(throws: SluiceError.self) { _ = try await performer.perform(request) }
            #expect(error?.message == "the server closed the kept-alive connection to \(origin.hostAndPort)")
            #expect(calls.withLock { $0 } == 2)
        }
    }

    /// Bytes a server sends on an idle connection belong to no request: the connection is closed, and the next
    /// request goes out on a new one instead of reading them as its answer.
    @Test(arguments: TransportKind.socketCases)
    func closesAnIdleConnectionTheServerWritesTo(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "/then-more",
            response: LoopbackServer.Response(
                fault: .raw(
                    [
                        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale",
                    ],
                    pause: .milliseconds(50),
                    thenClose: false
                )
            )
        )
        server.route("/fresh", response: .text("fresh"))
        let performer = kind.makeSocketPerformer()
        do {
            let first = try await performer.perform(URLRequest(url: origin.url("/then-more")))
            #expect(String(decoding: first.body, as: UTF8.self) == "ok")
        } catch let error as SluiceError {
            // On a machine so busy that both pieces arrive in one read, the extra bytes fail the first request.
            #expect(error.message.hasPrefix("the server sent 43 bytes after the end of the response"))
        }
        try await performer.openConnectionsGauge.wait(for: "the idle connection to close") { $0 == 0 }
        let next = try await performer.perform(URLRequest(url: origin.url("/fresh")))
        #expect(String(decoding: next.body, as: UTF8.self) == "fresh")
    }

    @Test(arguments: TransportKind.socketCases)
    func dropsCredentialsOnARedirectToAnotherOrigin(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let other = try LoopbackServer()
        other.route("/landing") { request in .text(request.header("Authorization") ?? "(none)") }
        server.route("/landing") { request in .text(request.header("Authorization") ?? "(none)") }
        let elsewhere = try await kind.origin(of: other)
        server.route("/away", response: .redirect(to: elsewhere.url("/landing").absoluteString))
        server.route("/home", response: .redirect(to: "/landing"))
        let performer = kind.makeSocketPerformer()
        for (path, expected) in [("/away", "(none)"), ("/home", "Bearer token")] {
            var request = URLRequest(url: origin.url(path))
            request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
            let response = try await performer.perform(request)
            #expect(String(decoding: response.body, as: UTF8.self) == expected, "\(path)")
        }
    }

    @Test(arguments: TransportKind.socketCases)
    func turnsAPostIntoAGetOnA303(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route(
            "POST",
            "/submit",
            response: LoopbackServer.Response(status: 303, headers: [.init("Location", "/done")])
        )
        server.route("GET", "/done") { request in .text("\(request.method) \(request.body.count)") }
        var request = URLRequest(url: origin.url("/submit"))
        request.httpMethod = "POST"
        request.httpBody = Data("form".utf8)
        let response = try await kind.makeSocketPerformer().perform(request)
        #expect(String(decoding: response.body, as: UTF8.self) == "GET 0")
        #expect(response.url == origin.url("/done"))
    }

    @Test(arguments: TransportKind.socketCases)
    func failsAfterTooManyRedirects(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/loop", response: .redirect(to: "/loop"))
        let performer = kind.makeSocketPerformer(configuration: .init(maximumRedirects: 3))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: origin.url("/loop")))
        }
        #expect(error?.message == "more than 3 redirects, starting at \(origin.url("/loop"))")
    }

    /// Plain only: no server, and no TLS, is involved in handing a scheme over.
    @Test func handsOtherSchemesToTheFallback() async throws {
        let fallback = RecordingFallback()
        let performer = SocketRequestPerformer(configuration: .init(fallback: fallback))
        let url = URL(string: "ftp://example.invalid/file")!
        let response = try await performer.perform(URLRequest(url: url))
        #expect(String(decoding: response.body, as: UTF8.self) == "from the fallback")
        #expect(fallback.seen.withLock { $0 } == [url])
        #expect(performer.openConnections == 0)
    }

    /// Where OpenSSL is loaded, `https://` is sent by the performer itself (here, to a host that does not resolve);
    /// elsewhere it goes to the fallback.
    @Test func sendsHTTPSItselfWhereItCan() async throws {
        let fallback = RecordingFallback()
        let performer = SocketRequestPerformer(configuration: .init(fallback: fallback))
        #expect(performer.handlesHTTPS == (SocketRequestPerformer.httpsUnavailableReason == nil))
        let url = URL(string: "https://example.invalid/secure")!
        if performer.handlesHTTPS {
            let error = await #expect(throws: SluiceError.self) {
                _ = try await performer.perform(URLRequest(url: url))
            }
            #expect(error?.message.hasPrefix("could not resolve example.invalid") == true)
            #expect(fallback.seen.withLock { $0 }.isEmpty)
        } else {
            _ = try await performer.perform(URLRequest(url: url))
            #expect(fallback.seen.withLock { $0 } == [url])
        }
    }

    /// A TLS configuration the fallback could not honour (a pin) fails an `https://` request the performer cannot
    /// send itself, rather than letting it go out unpinned; where it can, the pin is the performer's to check.
    @Test func neverFallsBackWithTLSSettingsItCannotHonour() async throws {
        let fallback = RecordingFallback()
        let tls = TLSConfiguration(pinnedPublicKeys: ["47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="])
        let performer = SocketRequestPerformer(configuration: .init(tls: tls, fallback: fallback))
        let url = URL(string: "https://example.invalid/secure")!
        let error = await #expect(throws: SluiceError.self) { _ = try await performer.perform(URLRequest(url: url)) }
        if !performer.handlesHTTPS {
            #expect(error?.message.hasPrefix("the request to \(url) was not sent: its TLS configuration") == true)
        }
        #expect(fallback.seen.withLock { $0 }.isEmpty)
    }

    /// Plain only: nothing listens, so no TLS handshake starts; failed handshakes are ``NginxTLSTests``'.
    @Test func failsToConnectNamingTheAddress() async throws {
        // A port nothing listens on, held bound meanwhile: a port let go of (a stopped server's) could be taken by
        // another test's server or relay before the request reaches it.
        let (held, port) = try NginxServer.reservedPort()
        defer { close(held) }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let performer = SocketRequestPerformer()
        let error = await #expect(throws: SluiceError.self) { _ = try await performer.perform(URLRequest(url: url)) }
        #expect(
            error?.message == "could not connect to 127.0.0.1:\(url.port ?? 0): connect: Connection refused (errno 111)"
        )
        #expect((error?.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(performer.openConnections == 0)
    }

    /// A Unix socket path longer than a socket address holds fails before connecting, naming the path and the limit,
    /// rather than being cut short to reach another socket.
    ///
    /// Plain only: it fails before any connection.
    @Test func aUnixSocketPathTooLongForTheSystemFailsNamingIt() async throws {
        let path = "/tmp/" + String(repeating: "d", count: 120) + ".sock"
        let performer = SocketRequestPerformer(configuration: .init(unixSocketPath: path))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: URL(string: "http://localhost/info")!))
        }
        #expect(error?.message == "the Unix socket path \(path) is longer than the 107 bytes the system takes")
        #expect(performer.openConnections == 0)
    }

    @Test(arguments: TransportKind.socketCases)
    func sendsAStreamBodyChunkedOrWithItsLengthNeverBoth(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("POST", "/upload") { request in
            .text(
                "\(request.header("Content-Length") ?? "-") \(request.header("Transfer-Encoding") ?? "-") \(request.body.count)"
            )
        }
        let body = Data(repeating: 7, count: 200_000)
        let performer = kind.makeSocketPerformer()
        var chunked = URLRequest(url: origin.url("/upload"))
        chunked.httpMethod = "POST"
        chunked.httpBodyStream = InputStream(data: body)
        let sentChunked = try await performer.perform(chunked)
        #expect(String(decoding: sentChunked.body, as: UTF8.self) == "- chunked 200000")
        var sized = chunked
        sized.httpBodyStream = InputStream(data: body)
        sized.setValue("200000", forHTTPHeaderField: "Content-Length")
        let sentSized = try await performer.perform(sized)
        #expect(String(decoding: sentSized.body, as: UTF8.self) == "200000 - 200000")
    }

    @Test(arguments: TransportKind.socketCases)
    func failsAStreamBodyShorterThanItsLength(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("POST", "/upload", response: .text("never"))
        var request = URLRequest(url: origin.url("/upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data(count: 10))
        request.setValue("20", forHTTPHeaderField: "Content-Length")
        let error = await #expect(throws: SluiceError.self) {
            _ = try await kind.makeSocketPerformer().perform(request)
        }
        #expect(error?.message == "the request body stream ended after 10 bytes, short of its Content-Length of 20")
    }

    /// A header value with a line break never splits the head: FoundationNetworking drops such a field from the
    /// request, and the transport refuses one that gets through.
    @Test(arguments: TransportKind.socketCases)
    func neverSendsAHeaderValueWithALineBreak(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/x", response: .text("x"))
        var request = URLRequest(url: origin.url("/x"))
        request.setValue("a\r\nInjected: yes", forHTTPHeaderField: "X-Note")
        do {
            _ = try await kind.makeSocketPerformer().perform(request)
            let received = try #require(server.receivedRequests.last)
            #expect(received.header("Injected") == nil)
            #expect(received.header("X-Note") == nil)
        } catch let error as SluiceError {
            #expect(
                error.message
                    == "cannot send the request: URLRequest.headers.X-Note: the value contains the control character "
                    + "U+000D, which would break the header"
            )
            #expect(server.requestCount == 0)
        }
    }

    @Test(arguments: TransportKind.socketCases)
    func sendsTheCodingsItDecodesAndNamesTheHost(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/headers") { request in
            .text("\(request.header("Accept-Encoding") ?? "-") \(request.header("Host") ?? "-")")
        }
        let response = try await kind.makeSocketPerformer().perform(URLRequest(url: origin.url("/headers")))
        let codings = SocketRequestPerformer.decodedContentCodings.joined(separator: ", ")
        #expect(String(decoding: response.body, as: UTF8.self) == "\(codings) \(origin.hostAndPort)")
    }

    @Test(arguments: TransportKind.socketCases)
    func readsNoBodyAfterA304(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        // The 304 announces the length of the representation it stands for, and sends no body.
        server.route(
            "/cached",
            response: LoopbackServer.Response(
                fault: .raw(["HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n"], thenClose: false)
            )
        )
        server.route("/after", response: .text("after"))
        let performer = kind.makeSocketPerformer()
        let cached = try await performer.perform(URLRequest(url: origin.url("/cached")))
        #expect(cached.status.code == 304)
        #expect(cached.body.isEmpty)
        // The connection carries the next request: nothing of the 304 was left to read.
        let after = try await performer.perform(URLRequest(url: origin.url("/after")))
        #expect(String(decoding: after.body, as: UTF8.self) == "after")
        #expect(server.acceptedConnections == 1)
    }

    /// Plain only: every test inside TLS already reaches its relay by the name `localhost`.
    @Test func resolvesAHostName() async throws {
        server.route("/named", response: .text("named"))
        let url = try #require(URL(string: "http://localhost:\(server.port)/named"))
        let response = try await SocketRequestPerformer().perform(URLRequest(url: url))
        #expect(String(decoding: response.body, as: UTF8.self) == "named")
    }

    @Test(arguments: TransportKind.socketCases)
    func closesIdleConnectionsAfterTheIdleTimeout(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/n", response: .text("n"))
        let performer = kind.makeSocketPerformer(configuration: .init(idleConnectionTimeout: .milliseconds(100)))
        _ = try await performer.perform(URLRequest(url: origin.url("/n")))
        // Kept alive at first (unless the machine is so busy that the timeout has passed already).
        #expect(performer.openConnections <= 1)
        #expect(server.acceptedConnections == 1)
        try await performer.openConnectionsGauge.wait(for: "the idle connection to close") { $0 == 0 }
        try await server.openConnectionsGauge.wait(for: "the server to see it close") { $0 == 0 }
    }

    /// Also for a task on one of the transport's loops, which the cancellation reaches from another thread.
    @Test(arguments: TransportKind.socketCases, [false, true])
    func cancellingARequestFreesItsPlaceInThePool(_ kind: TransportKind, onALoop: Bool) async throws {
        let origin = try await kind.origin(of: server)
        let arrived = Signal("the request at the server")
        server.route("/hang") { _ in
            arrived.fire()
            // Longer than any run, however slow: the cancellation ends it, and the server's stop cuts the wait.
            return LoopbackServer.Response.text("late").delayed(by: .seconds(3_600))
        }
        server.route("/quick", response: .text("quick"))
        let performer = kind.makeSocketPerformer(configuration: .init(maximumConnectionsPerOrigin: 1))
        // Its idle timeout longer than any run too: only the cancellation may end it.
        let hang = URLRequest(url: origin.url("/hang"), timeoutInterval: 3_600)
        let hanging = Task.starting(onALoop: onALoop) { try await performer.perform(hang) }
        try await arrived.wait()
        #expect(server.receivedRequests.count == 1)
        hanging.cancel()
        await #expect(throws: CancellationError.self) { try await hanging.value }
        #expect(performer.openConnections == 0)
        let quick = try await performer.perform(URLRequest(url: origin.url("/quick")))
        #expect(String(decoding: quick.body, as: UTF8.self) == "quick")
    }
}

/// A fallback that records the URLs it was given and answers each.
private struct RecordingFallback: RequestPerformer {
    /// The URLs asked for, in order.
    let seen = Locked<[URL]>([])

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        if let url = request.url {
            seen.withLock { $0.append(url) }
        }
        return HTTPResponse(status: .ok, body: Data("from the fallback".utf8))
    }
}
