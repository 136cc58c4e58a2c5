import ClientFixtures
// Transports against nginx, a real HTTP/1.1 server: every body is compared byte for byte with the document served.
import Foundation
import SluiceCore
import TestSupport
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

/// A user as `/users.json` describes one, with the fields a client reads (not the `bio` it skips).
private struct ServedUser: Decodable, Equatable {
    /// The user's number.
    let id: Int
    /// The user's name.
    let name: String
    /// The user's address.
    let email: String
    /// When the user was created, as the plain string the document holds.
    let createdAt: String
}

/// `GET /users.json`, decoded into users.
private struct ListServedUsers: Request {
    typealias ResponseObject = [ServedUser]

    /// The document's URL.
    let url: URL

    /// Builds the request.
    ///
    /// - Returns: A GET of ``url``.
    func build() throws -> URLRequest {
        URLRequest(url: url)
    }
}

/// Each transport against nginx over TCP: bodies intact, statuses and framings as sent, connections kept alive and
/// shared.
@Suite(
    .serialized,
    .enabled(if: NginxServer.executable != nil || NginxServer.isRequired, Comment(rawValue: NginxServer.missingReason))
)
struct NginxTransportTests {
    /// The server, new for each test.
    let server: NginxServer

    /// Starts the server, or fails when the peers are required and nginx is missing.
    init() async throws {
        server = try #require(
            try await NginxServer.startOffThePool(),
            "SLUICE_REQUIRE_PEERS is set, but nginx is missing"
        )
    }

    /// Sends a request to a path of the server.
    ///
    /// - Parameters:
    ///   - path: The path.
    ///   - method: The request's method.
    ///   - body: The request's body, if any.
    ///   - performer: The transport.
    /// - Returns: The response.
    /// - Throws: What the transport throws when no response arrived.
    private func send(
        _ path: String,
        method: String = "GET",
        body: Data? = nil,
        with performer: any RequestPerformer
    ) async throws -> HTTPResponse {
        var request = URLRequest(url: server.url(path))
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = 15
        return try await performer.perform(request)
    }

    /// Over IPv6 loopback, `http://[::1]:<port>`, documents arrive whole, the `Host` field keeps the address's
    /// brackets, and one connection carries the requests in turn.
    ///
    /// Sluice's own transport only: FoundationNetworking's URLSession in Swift 6.3 fails every URL with an IPv6
    /// address for a host with `URLError.badURL` (swiftlang/swift-corelibs-foundation#5496, fixed by #5498 in a
    /// later release).
    @Test(.enabled(if: NginxServer.hasIPv6Loopback, "this machine has no IPv6 loopback"))
    func ipv6LoopbackServesTheDocuments() async throws {
        let performer = SocketRequestPerformer()
        for _ in 0..<3 {
            let small = try await performer.perform(URLRequest(url: try #require(server.ipv6URL("/small.json"))))
            #expect(small.status.code == 200)
            #expect(small.body == NginxServer.smallJSON)
        }
        let large = try await performer.perform(URLRequest(url: try #require(server.ipv6URL("/large.bin"))))
        #expect(large.body == NginxServer.largeBinary)
        let host = try await performer.perform(URLRequest(url: try #require(server.ipv6URL("/echo-host"))))
        #expect(String(decoding: host.body, as: UTF8.self) == "[::1]:\(server.port)")
        let connection = try await performer.perform(URLRequest(url: try #require(server.ipv6URL("/connection"))))
        let requests = String(decoding: connection.body, as: UTF8.self).split(separator: " ").last
        #expect(requests == "6", "the sixth request on one kept-alive connection")
        #expect(performer.openConnections == 1)
    }

    /// nginx with `gzip on` compresses what each transport asks for, and both hand over the document decoded, buffered
    /// and streamed, with the fields as nginx sent them.
    @Test(arguments: TransportKind.plainCases)
    func aGzippedDocumentArrivesDecoded(_ kind: TransportKind) async throws {
        let performer = kind.makePerformer()
        let response = try await send("/gzip/users.json", with: performer)
        #expect(response.body == NginxServer.usersJSON)
        #expect(response.headers[.contentEncoding] == "gzip")
        var request = URLRequest(url: server.url("/gzip/users.json"))
        request.timeoutInterval = 15
        let streamed = try await performer.stream(request)
        #expect(streamed.headers[.contentEncoding] == "gzip")
        #expect(try await streamed.body.collect(upTo: 8 << 20) == NginxServer.usersJSON)
        let users = try await APIClient(requestPerformer: performer).perform(
            ListServedUsers(url: server.url("/gzip/users.json"))
        )
        #expect(users.count == NginxServer.userCount)
    }

    /// A small JSON document arrives byte for byte, with its length and type.
    @Test(arguments: TransportKind.plainCases)
    func smallDocumentArrivesByteForByte(_ kind: TransportKind) async throws {
        let response = try await send("/small.json", with: kind.makePerformer())
        #expect(response.status.code == 200)
        #expect(response.body == NginxServer.smallJSON)
        #expect(response.headers[.contentLength] == "\(NginxServer.smallJSON.count)")
        #expect(response.headers[.contentType] == "application/json")
    }

    /// An early response: nginx answers 413 from the head of an upload far over its limit, before reading the body.
    ///
    /// Both transports hand over the 413 rather than fail on the body nginx no longer reads, and serve the next
    /// request.
    @Test(arguments: TransportKind.plainCases)
    func anEarlyResponseToAnUploadIsHandedOver(_ kind: TransportKind) async throws {
        let performer = kind.makePerformer()
        let response = try await send("/small-upload", method: "POST", body: Data(count: 8 << 20), with: performer)
        #expect(response.status.code == 413)
        #expect(try await send("/small.json", with: performer).body == NginxServer.smallJSON)
    }

    /// A 1.5 MiB body arrives whole, every byte in place.
    @Test(arguments: TransportKind.plainCases)
    func largeBodyArrivesIntact(_ kind: TransportKind) async throws {
        let response = try await send("/large.bin", with: kind.makePerformer())
        #expect(response.status.code == 200)
        #expect(response.body.count == NginxServer.largeBinary.count)
        #expect(response.body == NginxServer.largeBinary)
    }

    /// A HEAD response has the length of the body a GET would get, and no body.
    @Test(arguments: TransportKind.plainCases)
    func headResponseHasALengthAndNoBody(_ kind: TransportKind) async throws {
        let response = try await send("/large.bin", method: "HEAD", with: kind.makePerformer())
        #expect(response.status.code == 200)
        #expect(response.headers[.contentLength] == "\(NginxServer.largeBinary.count)")
        #expect(response.body.isEmpty)
    }

    /// A 204 arrives with an empty body.
    @Test(arguments: TransportKind.plainCases)
    func noContentHasAnEmptyBody(_ kind: TransportKind) async throws {
        let response = try await send("/empty", with: kind.makePerformer())
        #expect(response.status.code == 204)
        #expect(response.body.isEmpty)
    }

    /// A missing document is a 404 response, not an error.
    @Test(arguments: TransportKind.plainCases)
    func missingDocumentIsA404(_ kind: TransportKind) async throws {
        let response = try await send("/missing.json", with: kind.makePerformer())
        #expect(response.status.code == 404)
    }

    /// A redirect, relative or absolute, is followed to the document it names.
    @Test(arguments: TransportKind.plainCases, ["/redirect", "/redirect-absolute"])
    func redirectIsFollowed(_ kind: TransportKind, path: String) async throws {
        let response = try await send(path, with: kind.makePerformer())
        #expect(response.status.code == 200)
        #expect(response.body == NginxServer.smallJSON)
        #expect(response.url?.path == "/small.json")
    }

    /// A chunked body, with no length ahead of it, arrives whole.
    @Test(arguments: TransportKind.plainCases)
    func chunkedBodyArrivesWhole(_ kind: TransportKind) async throws {
        let response = try await send("/chunked.json", with: kind.makePerformer())
        #expect(response.status.code == 200)
        #expect(response.headers[.contentLength] == nil)
        #expect(response.body == NginxServer.smallJSON)
    }

    /// Each method reaches the server as sent, those with a body too.
    @Test(arguments: TransportKind.plainCases)
    func methodsReachTheServer(_ kind: TransportKind) async throws {
        let performer = kind.makePerformer()
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            let body = method == "GET" || method == "DELETE" ? nil : Data("a body for \(method)".utf8)
            let response = try await send("/echo-method", method: method, body: body, with: performer)
            #expect(response.status.code == 200, "\(method)")
            #expect(String(decoding: response.body, as: UTF8.self) == method)
        }
    }

    /// A hundred requests in a row are carried by a connection kept alive, not a connection each.
    @Test(arguments: TransportKind.plainCases)
    func sequentialRequestsReuseAConnection(_ kind: TransportKind) async throws {
        let performer = kind.makePerformer()
        var connections: Set<String> = []
        var reused = 0
        for _ in 0..<100 {
            let response = try await send("/connection", with: performer)
            try #require(response.status.code == 200)
            let fields = String(decoding: response.body, as: UTF8.self).split(separator: " ")
            try #require(fields.count == 2, "\(response.body)")
            connections.insert(String(fields[0]))
            if let requests = Int(fields[1]), requests > 1 {
                reused += 1
            }
        }
        #expect(connections.count == 1)
        #expect(reused == 99)
    }

    /// Sixteen requests at once, for small and large documents, each get their own body.
    @Test(arguments: TransportKind.plainCases)
    func concurrentRequestsEachGetTheirBody(_ kind: TransportKind) async throws {
        let performer = kind.makePerformer()
        try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
            for index in 0..<16 {
                group.addTask {
                    (index, try await send(index % 2 == 0 ? "/small.json" : "/large.bin", with: performer))
                }
            }
            var answered = 0
            for try await (index, response) in group {
                let expected = index % 2 == 0 ? NginxServer.smallJSON : NginxServer.largeBinary
                #expect(response.status.code == 200, "request \(index)")
                #expect(response.body == expected, "request \(index)")
                answered += 1
            }
            #expect(answered == 16)
        }
    }

    /// A 1.5 MB array of users decodes through the client into the model, every user as the server wrote it.
    @Test(arguments: TransportKind.plainCases)
    func usersDecodeThroughTheClient(_ kind: TransportKind) async throws {
        let client = APIClient(requestPerformer: kind.makePerformer())
        let users = try await client.perform(ListServedUsers(url: server.url("/users.json")))
        let expected = NginxServer.users.map {
            ServedUser(id: $0.id, name: $0.name, email: $0.email, createdAt: $0.createdAt)
        }
        #expect(NginxServer.usersJSON.count > 1_400_000)
        #expect(users.count == NginxServer.userCount)
        #expect(users == expected)
    }
}

/// The server itself: it answers over its Unix domain socket, with the framings the transport tests expect, and
/// stopping it ends it and removes its directory.
@Suite(
    .serialized,
    .enabled(if: NginxServer.executable != nil || NginxServer.isRequired, Comment(rawValue: NginxServer.missingReason))
)
struct NginxServerTests {
    /// The server, new for each test.
    let server: NginxServer

    /// Starts the server, or fails when the peers are required and nginx is missing.
    init() async throws {
        server = try #require(
            try await NginxServer.startOffThePool(),
            "SLUICE_REQUIRE_PEERS is set, but nginx is missing"
        )
    }

    /// The Unix domain socket is there, and a request over it gets the document.
    @Test func unixSocketServesTheDocuments() throws {
        let attributes = try FileManager.default.attributesOfItem(atPath: server.unixSocketPath)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)
        let request = "GET /small.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let reply = try exchange(request, overUnixSocket: server.unixSocketPath)
        let separator = Array("\r\n\r\n".utf8)
        let headEnd = try #require(
            reply.indices.first { reply[$0...].starts(with: separator) },
            "no end of head in \(String(decoding: reply, as: UTF8.self).debugDescription)"
        )
        let head = String(decoding: reply[..<headEnd], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200 "), "\(head)")
        #expect(Data(reply[(headEnd + separator.count)...]) == NginxServer.smallJSON)
    }

    /// `/chunked.json` is sent chunked, with no `Content-Length`, as the chunked tests of a transport expect.
    @Test func chunkedDocumentIsSentChunked() throws {
        let request = "GET /chunked.json HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        let reply = String(decoding: try exchange(request, overUnixSocket: server.unixSocketPath), as: UTF8.self)
        let head = try #require(reply.components(separatedBy: "\r\n\r\n").first).lowercased()
        #expect(head.hasPrefix("http/1.1 200 "), "\(head)")
        #expect(head.contains("\r\ntransfer-encoding: chunked"), "\(head)")
        #expect(!head.contains("\r\ncontent-length:"), "\(head)")
    }

    /// Stopping a server ends nginx as asked, not killed, closes its port, and removes its directory, socket
    /// included, even when the thread that started it blocked the signal that asks, as the threads tests run on
    /// may.
    @Test func stoppingEndsTheServerAndRemovesItsDirectory() async throws {
        let started = try await offThePool { () throws -> NginxServer? in
            var blocked = sigset_t()
            var previous = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGTERM)
            pthread_sigmask(SIG_BLOCK, &blocked, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            return try NginxServer.start()
        }
        let server = try #require(started)

        #expect(NginxServer.acceptsConnections(port: server.port))
        await offThePool { server.stop() }
        #expect(server.process.terminationStatus == 0)
        #expect(!NginxServer.acceptsConnections(port: server.port))
        #expect(!FileManager.default.fileExists(atPath: server.directory.path))
        #expect(!FileManager.default.fileExists(atPath: server.unixSocketPath))
    }
}

/// Sends a request over a Unix domain socket and reads until the server closes the connection.
///
/// A read or write that waits longer than 10 seconds fails, so that a server that does not answer fails the test
/// instead of hanging it.
///
/// - Parameters:
///   - request: The request, head and body, as sent.
///   - path: The socket's path.
/// - Returns: Every byte the server sent.
/// - Throws: ``RawClientError`` when the socket could not be opened or written.
private func exchange(_ request: String, overUnixSocket path: String) throws -> [UInt8] {
    let client = try RawClient(address: .unix(path))
    try client.send(request)
    return client.readToEnd()
}

/// Sluice's own transport to nginx over its Unix domain socket, by URL and by configuration.
@Suite(
    .serialized,
    .enabled(if: NginxServer.executable != nil || NginxServer.isRequired, Comment(rawValue: NginxServer.missingReason))
)
struct NginxUnixSocketTests {
    /// The server, new for each test.
    let server: NginxServer

    /// Starts the server, or fails when the peers are required and nginx is missing.
    init() async throws {
        server = try #require(
            try await NginxServer.startOffThePool(),
            "SLUICE_REQUIRE_PEERS is set, but nginx is missing"
        )
    }

    /// A URL of the `http+unix` form for a path on the server's socket.
    private func unixURL(_ path: String) throws -> URL {
        let host = try #require(server.unixSocketPath.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        return try #require(URL(string: "http+unix://\(host)\(path)"))
    }

    /// A URL of the `http+unix` form reaches the socket; documents arrive whole, and the connection is kept alive.
    @Test func anHTTPPlusUnixURLReachesTheSocket() async throws {
        let performer = SocketRequestPerformer()
        for _ in 0..<3 {
            let small = try await performer.perform(URLRequest(url: try unixURL("/small.json")))
            #expect(small.status.code == 200)
            #expect(small.body == NginxServer.smallJSON)
        }
        let large = try await performer.perform(URLRequest(url: try unixURL("/large.bin")))
        #expect(large.body == NginxServer.largeBinary)
        #expect(performer.openConnections == 1)
    }

    /// With a socket path in the configuration, ordinary `http://` URLs go to the socket, whatever their host.
    @Test func aConfiguredSocketTakesEveryHTTPRequest() async throws {
        let performer = SocketRequestPerformer(configuration: .init(unixSocketPath: server.unixSocketPath))
        let client = APIClient(requestPerformer: performer)
        let users = try await client.perform(ListServedUsers(url: URL(string: "http://engine.invalid/users.json")!))
        #expect(users.count == NginxServer.userCount)
        let chunked = try await performer.perform(URLRequest(url: URL(string: "http://engine.invalid/chunked.json")!))
        #expect(chunked.headers[.contentLength] == nil)
        #expect(chunked.body == NginxServer.smallJSON)
    }

    /// Sixteen requests at once over the socket each get their own body.
    @Test func concurrentRequestsOverTheSocket() async throws {
        let performer = SocketRequestPerformer()
        let small = try unixURL("/small.json")
        let large = try unixURL("/large.bin")
        try await withThrowingTaskGroup(of: (Int, HTTPResponse).self) { group in
            for index in 0..<16 {
                group.addTask { (index, try await performer.perform(URLRequest(url: index % 2 == 0 ? small : large))) }
            }
            for try await (index, response) in group {
                #expect(response.body == (index % 2 == 0 ? NginxServer.smallJSON : NginxServer.largeBinary))
            }
        }
        #expect(performer.openConnections <= 16)
    }

    /// A socket that is not there fails with an error naming it.
    @Test func aMissingSocketFailsNamingIt() async throws {
        let path = server.unixSocketPath + ".missing"
        let performer = SocketRequestPerformer(configuration: .init(unixSocketPath: path))
        let error = await #expect(throws: SluiceError.self) {
            _ = try await performer.perform(URLRequest(url: URL(string: "http://localhost/small.json")!))
        }
        #expect(error?.message == "could not connect to unix:\(path): connect: No such file or directory (errno 2)")
    }
}
