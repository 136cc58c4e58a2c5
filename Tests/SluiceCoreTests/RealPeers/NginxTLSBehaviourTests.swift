import ClientFixtures
// Sluice's own transport over TLS against nginx: pins, client certificates, protocol versions, session resumption,
// and the transport's behaviour (streams, back-pressure, cancellation, faults) with TLS under it.
import Dispatch
import Foundation
import SluiceCore
import SluiceTesting
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Raw sockets come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

extension NginxTLSTests {
    /// What the configuration adds to verification: pins, a client certificate, the minimum version; and what a server
    /// can do wrong at the TLS layer.
    @Suite
    struct ConfigurationTests {
        let pki: TestPKI

        init() async throws {
            pki = try await requirePKI()
        }

        /// A pin of the server's key, or of its intermediate's, lets the connection through; a pin of another key fails
        /// it, naming the pins the chain holds.
        @Test(arguments: TLSLibrary.all)
        func pinsFailClosed(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let url = try server.httpsURL("/small.json")
            for pin in [pki.good.pin, pki.intermediatePin] {
                let pinned = try tlsPerformer(pki, library: library) {
                    $0.pinnedPublicKeys = [pki.selfSigned.pin, pin]
                }
                #expect(try await pinned.perform(URLRequest(url: url)).body == NginxServer.smallJSON)
            }
            let wrong = try tlsPerformer(pki, library: library) { $0.pinnedPublicKeys = [pki.selfSigned.pin] }
            let message = await failureMessage(url, with: wrong)
            #expect(
                message
                    == "the certificate chain of localhost:\(server.tlsPort ?? 0) holds none of the pinned public keys: it holds \(pki.good.pin), \(pki.intermediatePin), \(pki.rootPin); pinned: \(pki.selfSigned.pin)"
            )
            #expect(wrong.openConnections == 0)
        }

        /// A pin that is not a base64 SHA-256 digest fails every request, saying so.
        @Test(arguments: TLSLibrary.all)
        func aMalformedPinFailsTheRequest(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let performer = try tlsPerformer(pki, library: library) { $0.pinnedPublicKeys = ["not a pin"] }
            let message = await failureMessage(try server.httpsURL("/small.json"), with: performer)
            #expect(
                message
                    == "the TLS configuration could not be put in place: the pin not a pin is not the base64 form of a SHA-256 digest"
            )
        }

        /// A trust root file that is not there fails every request, naming it.
        @Test func aMissingTrustRootFileFailsTheRequest() async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let path = pki.directory.appendingPathComponent("missing.pem").path
            let performer = try tlsPerformer(pki) { $0.additionalTrustRoots = [.file(path)] }
            let message = await failureMessage(try server.httpsURL("/small.json"), with: performer)
            #expect(
                message?.hasPrefix("the TLS configuration could not be put in place: could not read \(path)") == true
            )
        }

        /// A server that requires a client certificate turns a client without one away (nginx answers 400) and serves
        /// one that presents a certificate its root signed.
        @Test(arguments: TLSLibrary.all)
        func mutualTLSWithAndWithoutAClientCertificate(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(
                .init(chain: pki.good.chain, key: pki.good.key, clientCertificateAuthority: pki.root)
            )
            let url = try server.httpsURL("/small.json")
            let anonymous = try await tlsPerformer(pki, library: library).perform(URLRequest(url: url))
            #expect(anonymous.status.code == 400)
            #expect(String(decoding: anonymous.body, as: UTF8.self).contains("No required SSL certificate was sent"))

            let identified = try tlsPerformer(pki, library: library) {
                $0.clientIdentity = .init(
                    certificateChain: .file(pki.client.chain.path),
                    privateKey: .file(pki.client.key.path)
                )
            }
            let response = try await identified.perform(URLRequest(url: url))
            #expect(response.status.code == 200)
            #expect(response.body == NginxServer.smallJSON)
        }

        /// A client key that does not match its certificate is refused before anything is sent.
        @Test(arguments: TLSLibrary.all)
        func aMismatchedClientKeyFailsTheRequest(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let performer = try tlsPerformer(pki, library: library) {
                $0.clientIdentity = .init(
                    certificateChain: .file(pki.client.chain.path),
                    privateKey: .file(pki.good.key.path)
                )
            }
            let message = await failureMessage(try server.httpsURL("/small.json"), with: performer)
            #expect(
                message?.hasPrefix(
                    "the TLS configuration could not be put in place: the private key does not match the client certificate"
                ) == true
            )
        }

        /// A server of TLS 1.2 alone, and one of TLS 1.3 alone, each serve a default client, with the version nginx
        /// logs; a client that asks for TLS 1.3 at least fails against the first, saying they share no version.
        @Test(arguments: TLSLibrary.all, ["TLSv1.2", "TLSv1.3"])
        func aServerOfOneVersion(_ library: TLSLibrary, _ version: String) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key, protocols: version))
            let url = try server.httpsURL("/small.json")
            let performer = try tlsPerformer(pki, library: library)
            #expect(try await performer.perform(URLRequest(url: url)).body == NginxServer.smallJSON)
            let log = try await server.tlsAccessLog(after: performer)
            #expect(log.last?.hasSuffix(version) == true, "\(log)")
            guard version == "TLSv1.2" else { return }
            let modern = try tlsPerformer(pki, library: library) { $0.minimumVersion = .tls13 }
            let message = await failureMessage(url, with: modern)
            #expect(
                message?.hasPrefix(
                    "the server localhost:\(server.tlsPort ?? 0) and the client share no TLS version (the client accepts TLS 1.3 and later)"
                ) == true,
                "\(message ?? "")"
            )
        }

        /// A TLS 1.2 server whose one cipher suite needs an RSA key, presenting an EC certificate, has nothing to
        /// agree on with any client: the handshake fails with an error that says so, and the connection is not kept.
        @Test(arguments: TLSLibrary.all)
        func aServerWithNoCipherInCommonFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(
                .init(
                    chain: pki.good.chain,
                    key: pki.good.key,
                    protocols: "TLSv1.2",
                    ciphers: "ECDHE-RSA-AES128-GCM-SHA256"
                )
            )
            let performer = try tlsPerformer(pki, library: library)
            let url = try server.httpsURL("/small.json")
            let error = await #expect(throws: SluiceError.self) { try await performer.perform(URLRequest(url: url)) }
            let message = error?.message ?? ""
            #expect(
                message.hasPrefix(
                    "the server localhost:\(server.tlsPort ?? 0) refused the TLS handshake: no shared cipher or parameters ("
                ),
                "\(message)"
            )
            #expect(message.contains("handshake failure"), "\(message)")
            #expect(performer.openConnections == 0)
            try await performer.openDescriptorsGauge.wait(for: "the failed connection's descriptor to close") {
                $0 == 0
            }
            try await #require(performer.liveSSLObjectsGauge).wait(for: "its SSL object to be freed") { $0 == 0 }
        }

        /// A new connection to an origin resumes the session of the last one: nginx closes each connection after one
        /// request, and logs the second and third as resumed.
        ///
        /// The performer keeps that session itself: OpenSSL's own store of the context, which a client never looks up,
        /// holds none (it held every session of every connection until it expired, up to 20,480 of them).
        @Test(arguments: TLSLibrary.all, ["TLSv1.2", "TLSv1.3"])
        func aNewConnectionResumesTheSession(_ library: TLSLibrary, _ version: String) async throws {
            let server = try await startTLSServer(
                .init(chain: pki.good.chain, key: pki.good.key, protocols: version, keepaliveRequests: 1)
            )
            let performer = try tlsPerformer(pki, library: library)
            for _ in 0..<3 {
                let response = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
                #expect(response.body == NginxServer.smallJSON)
            }
            let log = try await server.tlsAccessLog(after: performer)
            #expect(log == [". \(version)", "r \(version)", "r \(version)"])
            #expect(performer.sessionsStoredByOpenSSL == 0)
        }

        /// A server that accepts the connection and never answers the handshake fails it at the connect timeout.
        @Test(arguments: TLSLibrary.all)
        func aStalledHandshakeEndsAtTheConnectTimeout(_ library: TLSLibrary) async throws {
            let silent = try SilentListener()
            defer { silent.stop() }
            let performer = try tlsPerformer(pki, library: library, connectTimeout: .milliseconds(200))
            let url = try #require(URL(string: "https://localhost:\(silent.port)/"))
            let error = await #expect(throws: URLError.self) { _ = try await performer.perform(URLRequest(url: url)) }
            #expect(error?.code == .timedOut)
            #expect(
                error?.localizedDescription
                    == "the TLS handshake with localhost:\(silent.port) did not finish within the connect timeout of 200.00ms"
            )
            #expect(performer.openConnections == 0)
        }
    }
}

extension NginxTLSTests {
    /// The transport's behaviour with TLS under it: bodies streamed with back-pressure, cancellation, a connection cut in
    /// the middle of a body; nginx forwards `/proxy/` to a loopback server that makes the faults.
    @Suite
    struct TransportTests {
        let pki: TestPKI
        let upstream: LoopbackServer
        let server: NginxServer

        init() async throws {
            pki = try await requirePKI()
            upstream = try LoopbackServer()
            server = try await startTLSServer(
                .init(chain: pki.good.chain, key: pki.good.key, upstream: upstream.baseURL)
            )
        }

        /// Each document and framing nginx serves arrives over TLS as over plain HTTP: lengths, chunks, no body,
        /// redirects followed, a missing document a 404.
        @Test(arguments: [
            ("/small.json", 200, NginxServer.smallJSON),
            ("/chunked.json", 200, NginxServer.smallJSON),
            ("/large.bin", 200, NginxServer.largeBinary),
            ("/users.json", 200, NginxServer.usersJSON),
            ("/redirect", 200, NginxServer.smallJSON),
            ("/redirect-absolute", 200, NginxServer.smallJSON),
            ("/empty", 204, Data()),
            ("/missing.json", 404, nil),
        ])
        func documentsArriveAsOverPlainHTTP(_ path: String, status: Int, body: Data?) async throws {
            let response = try await tlsPerformer(pki).perform(URLRequest(url: try server.httpsURL(path)))
            #expect(response.status.code == status)
            if let body {
                #expect(response.body == body)
            }
            if path.hasPrefix("/redirect") {
                #expect(response.url?.absoluteString == "https://localhost:\(server.tlsPort ?? 0)/small.json")
            }
        }

        /// A hundred requests in a row, HEAD among them, are carried by one connection kept alive.
        @Test(arguments: TLSLibrary.all)
        func sequentialRequestsReuseAConnection(_ library: TLSLibrary) async throws {
            let performer = try tlsPerformer(pki, library: library)
            var head = URLRequest(url: try server.httpsURL("/large.bin"))
            head.httpMethod = "HEAD"
            let headResponse = try await performer.perform(head)
            #expect(headResponse.headers[.contentLength] == "\(NginxServer.largeBinary.count)")
            #expect(headResponse.body.isEmpty)
            var last = ""
            for _ in 0..<100 {
                let response = try await performer.perform(URLRequest(url: try server.httpsURL("/connection")))
                last = String(decoding: response.body, as: UTF8.self)
            }
            #expect(last.split(separator: " ").last == "101")
            #expect(performer.openConnections == 1)
        }

        /// A large body streamed with a small read-ahead arrives whole: reading stops and resumes many times, with
        /// records left inside TLS while the socket is quiet.
        @Test(arguments: TLSLibrary.all)
        func aStreamedBodyWithBackPressureArrivesWhole(_ library: TLSLibrary) async throws {
            let performer = try tlsPerformer(pki, library: library, streamReadAhead: 4 << 10)
            let response = try await performer.stream(URLRequest(url: try server.httpsURL("/large.bin")))
            #expect(response.body.expectedLength == Int64(NginxServer.largeBinary.count))
            var received = Data()
            for try await chunk in response.body {
                received.append(chunk)
            }
            #expect(received == NginxServer.largeBinary)
            try await performer.requestsInFlightGauge.wait(for: "the transfer to end") { $0 == 0 }
        }

        /// Sixteen requests at once, small and large, each get their own body over their own TLS connection.
        @Test(arguments: TLSLibrary.all)
        func concurrentRequestsEachGetTheirBody(_ library: TLSLibrary) async throws {
            let performer = try tlsPerformer(pki, library: library)
            let small = try server.httpsURL("/small.json")
            let large = try server.httpsURL("/large.bin")
            try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
                for index in 0..<16 {
                    group.addTask {
                        (index, try await performer.perform(URLRequest(url: index % 2 == 0 ? small : large)))
                    }
                }
                for try await (index, response) in group {
                    #expect(response.body == (index % 2 == 0 ? NginxServer.smallJSON : NginxServer.largeBinary))
                }
            }
        }

        /// A body of data is sent over TLS, and a stream body chunked.
        @Test(arguments: TLSLibrary.all)
        func requestBodiesAreSent(_ library: TLSLibrary) async throws {
            upstream.route("/echo") { request in LoopbackServer.Response(body: request.body) }
            let performer = try tlsPerformer(pki, library: library)
            let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            var request = URLRequest(url: try server.httpsURL("/proxy/echo"))
            request.httpMethod = "POST"
            request.httpBody = body
            #expect(try await performer.perform(request).body == body)
            request.httpBody = nil
            request.httpBodyStream = InputStream(data: body)
            #expect(try await performer.perform(request).body == body)
        }

        /// Cancelling the task that reads an endless body ends the transfer at once, and frees the connection.
        @Test(arguments: TLSLibrary.all)
        func cancellingTheReaderEndsTheTransfer(_ library: TLSLibrary) async throws {
            upstream.route(
                "/endless",
                response: LoopbackServer.Response.generated(
                    byteCount: 1 << 40,
                    chunkSize: 1_024,
                    pause: .milliseconds(10)
                )
            )
            let performer = try tlsPerformer(pki, library: library)
            let response = try await performer.stream(URLRequest(url: try server.httpsURL("/proxy/endless")))
            let reader = Task {
                for try await _ in response.body {}
            }
            reader.cancel()
            await #expect(throws: CancellationError.self) { try await reader.value }
            try await performer.requestsInFlightGauge.wait(for: "the cancelled transfer to end") { $0 == 0 }
        }

        /// An upstream that dies in the middle of a body leaves nginx to end the TLS stream (with `close_notify`): the
        /// body fails after the bytes before the cut.
        @Test(arguments: TLSLibrary.all)
        func anUpstreamCutMidBodyFailsTheBody(_ library: TLSLibrary) async throws {
            let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            upstream.route(
                "/cut",
                response: LoopbackServer.Response(body: body).injecting(.closeMidBody(afterBytes: 30_000))
            )
            let performer = try tlsPerformer(pki, library: library)
            let response = try await performer.stream(URLRequest(url: try server.httpsURL("/proxy/cut")))
            var received = Data()
            let error = await #expect(throws: SluiceError.self) {
                for try await chunk in response.body {
                    received.append(chunk)
                }
            }
            #expect(
                error?.message
                    == "the server closed the connection after 30000 of 100000 bytes of the body (localhost:\(server.tlsPort ?? 0))"
            )
            #expect(received == body.prefix(30_000))
            try await performer.requestsInFlightGauge.wait(for: "the failed transfer to end") { $0 == 0 }
        }

        /// A TLS stream cut in the middle of a record, without `close_notify`, fails the body with an error that says
        /// the response may have been cut short, after the bytes that arrived whole.
        @Test(arguments: TLSLibrary.all)
        func aStreamCutWithoutCloseNotifyFailsTheBody(_ library: TLSLibrary) async throws {
            let relay = try CuttingRelay(to: try #require(server.tlsPort), cuttingAfter: 100_000)
            defer { relay.stop() }
            let performer = try tlsPerformer(pki, library: library)
            let url = try #require(URL(string: "https://localhost:\(relay.port)/large.bin"))
            let response = try await performer.stream(URLRequest(url: url))
            var received = Data()
            let error = await #expect(throws: SluiceError.self) {
                for try await chunk in response.body {
                    received.append(chunk)
                }
            }
            let message = error?.message ?? ""
            #expect(
                message.hasPrefix("the TLS stream from localhost:\(relay.port) was cut without close_notify after "),
                "\(message)"
            )
            #expect(message.hasSuffix(" of 1572864 bytes of the body: the response may be truncated"), "\(message)")
            #expect(received.count > 0 && received.count < NginxServer.largeBinary.count)
            #expect(received == NginxServer.largeBinary.prefix(received.count))
            try await performer.requestsInFlightGauge.wait(for: "the failed transfer to end") { $0 == 0 }
        }
    }
}

/// A loopback port that accepts connections (the system completes them into its backlog) and never reads or
/// answers: a TLS handshake to it stalls.
final class SilentListener: Sendable {
    /// The port.
    let port: Int
    private let socket: Socket

    /// Listens on a free loopback port.
    ///
    /// - Throws: ``SocketError`` when a call failed.
    init() throws {
        socket = try Self.listeningSocket()
        port = Self.port(of: socket)
    }

    /// Stops listening.
    func stop() {
        socket.closeDescriptor()
    }

    /// A TCP socket listening on a free loopback port.
    ///
    /// - Throws: ``SocketError`` when a call failed.
    static func listeningSocket() throws -> Socket {
        let socket = try Socket.stream(family: AF_INET)
        guard let address = SocketAddress.numeric(host: "127.0.0.1", port: 0),
            address.withSockaddr({ bind(socket.descriptor, $0, $1) }) == 0,
            listen(socket.descriptor, 8) == 0
        else {
            let code = errno
            socket.closeDescriptor()
            throw SocketError("bind", errno: code)
        }
        return socket
    }

    /// The port a socket is bound to.
    static func port(of socket: Socket) -> Int {
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: bound.sin_port))
    }
}

/// A loopback port whose first connection is accepted, with a blocking call, on a thread of its own and handed to a
/// body; the scripted peers of these tests are built on it.
///
/// The thread owns the listener and closes it once `accept` returns; ``stop()`` only shuts it down, which ends a
/// waiting `accept`. Both take one lock, so neither touches a descriptor the other closed: its number may meanwhile
/// belong to another test's socket.
final class OneConnectionListener: Sendable {
    /// The port.
    let port: Int
    private let listener: Socket
    /// Whether the thread has closed the listener.
    private let closed = Locked(false)

    /// Listens on a free loopback port, and serves its first connection on a thread of its own.
    ///
    /// - Parameter serve: Runs with the accepted connection, which it closes.
    /// - Throws: ``SocketError`` when it could not listen.
    init(serve: @escaping @Sendable (Socket) -> Void) throws {
        let listener = try SilentListener.listeningSocket()
        CuttingRelay.makeBlocking(listener)
        self.listener = listener
        port = SilentListener.port(of: listener)
        let closed = closed
        Thread.detachNewThread {
            let accepted = accept(listener.descriptor, nil, nil)
            closed.withLock { closed in
                closed = true
                listener.closeDescriptor()
            }
            guard accepted >= 0 else { return }
            serve(Socket(descriptor: accepted))
        }
    }

    /// Stops listening: a connection not yet accepted never will be.
    func stop() {
        closed.withLock { closed in
            if !closed {
                shutdown(listener.descriptor, Int32(SHUT_RDWR))
            }
        }
    }
}

/// A TCP relay to a loopback port that passes the server's first bytes to the client, then drops both connections
/// without a word: a TLS stream cut in the middle of a record, without `close_notify`.
///
/// It relays one connection, with blocking calls on threads of its own.
final class CuttingRelay: Sendable {
    /// The port the relay listens on.
    var port: Int { listener.port }
    private let listener: OneConnectionListener

    /// Listens on a free loopback port, and relays the first connection to `target`.
    ///
    /// - Parameters:
    ///   - target: The loopback port to relay to.
    ///   - limit: How many of the server's bytes reach the client before the cut.
    /// - Throws: ``SocketError`` when the relay could not listen.
    init(to target: Int, cuttingAfter limit: Int) throws {
        listener = try OneConnectionListener { client in
            guard let server = try? Self.connect(to: target) else {
                client.closeDescriptor()
                return
            }
            let upstreamDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Self.copy(from: client, to: server, limit: .max)
                upstreamDone.signal()
            }
            Self.copy(from: server, to: client, limit: limit)
            // Both ways end at once: the other thread's read returns, and no close_notify is sent.
            shutdown(client.descriptor, Int32(SHUT_RDWR))
            shutdown(server.descriptor, Int32(SHUT_RDWR))
            upstreamDone.wait()
            client.closeDescriptor()
            server.closeDescriptor()
        }
    }

    /// Stops listening.
    func stop() {
        listener.stop()
    }

    /// Copies bytes from one blocking socket to another until the first ends or `limit` bytes have passed.
    private static func copy(from source: Socket, to destination: Socket, limit: Int) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 16)
        defer { buffer.deallocate() }
        var passed = 0
        while passed < limit {
            let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, limit - passed)])
            guard case .transferred(let count) = source.receive(into: wanted) else { return }
            var sent = 0
            while sent < count {
                guard
                    case .transferred(let written) = destination.sendSome(
                        UnsafeRawBufferPointer(rebasing: buffer[sent..<count])
                    )
                else { return }
                sent += written
            }
            passed += count
        }
    }

    /// A blocking TCP socket connected to a loopback port.
    private static func connect(to port: Int) throws -> Socket {
        let socket = try Socket.stream(family: AF_INET)
        makeBlocking(socket)
        guard let address = SocketAddress.numeric(host: "127.0.0.1", port: port) else {
            socket.closeDescriptor()
            throw SocketError("connect", errno: EINVAL)
        }
        do {
            _ = try socket.connect(to: address)
        } catch {
            socket.closeDescriptor()
            throw error
        }
        return socket
    }

    /// Makes a socket's calls wait, as the relay's threads want.
    static func makeBlocking(_ socket: Socket) {
        let flags = fcntl(socket.descriptor, F_GETFL)
        _ = fcntl(socket.descriptor, F_SETFL, flags & ~O_NONBLOCK)
    }
}
