// Sluice's transports against one local nginx, beside wrk and bare URLSession, in one run:
// `swift run -c release TransportBenchmark`. async-http-client runs beside them, on the same files and ports.
//
// The tool starts nginx itself on a free loopback port, from a configuration it writes to a temporary directory,
// and stops it at the end; nginx (Debian: `apt-get install nginx-light wrk`) must be installed, wrk is optional.
// Three files are served: `/1k.json` (a JSON object of about 1 KB), `/large.bin` (1.5 MiB) and `/users.json`
// (1,000 users, about 1.5 MB).
// When `openssl` is installed, nginx serves them over TLS as well, with a self-signed certificate made for the run:
// Sluice's own transport is measured over HTTPS on kept-alive connections, and with a new connection per request,
// its session resumed or not (the handshake's cost). `/gz/` serves the same files gzipped, for the fetch-and-decode of
// the list compressed; and when squid is installed (Debian: `apt-get install squid`), the 1 KB document is fetched
// through it too, over HTTP and through a CONNECT tunnel.
//
// Every client runs for a short warm-up, discarded, and then for the measured time, with one task and with 16 tasks
// each sending one request after another. Each request's duration is taken on a `ContinuousClock`; CPU per request
// is this process's user and system time over the measured window divided by the requests (nginx's CPU is not in
// it; wrk's row shows wrk's own). nginx runs one worker process by default, so that on a two-core machine one core
// serves and one is left to the client; with two workers nginx could take both cores from the client at 16
// connections.
//
// `swift run -c release TransportBenchmark http2` runs the HTTP/2 rows instead (HTTP2Run.swift): nginx's HTTP/2 over
// TLS and by prior knowledge, Sluice's transport over HTTP/2 and HTTP/1.1, async-http-client and URLSession over HTTP/2,
// and h2load (Debian: `apt-get install nghttp2-client`) as the limit, at 1, 16 and 100 requests at once.
//
// Settings, from the environment:
// - `TRANSPORT_BENCH_SECONDS`: the measured time of each phase; 3 by default.
// - `TRANSPORT_BENCH_WARMUP`: the warm-up of each phase; 0.5 by default (wrk's, rounded up to whole seconds).
// - `TRANSPORT_BENCH_TIMEOUT`: how long one phase may take before the tool gives up; 60 by default.
// - `TRANSPORT_BENCH_NGINX_WORKERS`: nginx's worker processes; 1 by default.
// - `TRANSPORT_BENCH_FILTER`: run only the clients whose name contains one of these comma-separated texts (wrk,
//   URLSession, Socket, ...).
import Foundation
import Sluice

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request whose response object is the body's bytes.
struct FetchData: Request {
    typealias ResponseObject = Data
    /// The URL to load.
    let url: URL

    func build() -> URLRequest {
        makeRequest(url)
    }
}

/// A request for the user list, decoded by Sluice's own decoder.
struct ListUsers: Request {
    typealias ResponseObject = [User]
    /// The URL of the list.
    let url: URL

    func build() -> URLRequest {
        makeRequest(url)
    }
}

/// A GET of a URL with a timeout short enough that a stuck request fails within a phase.
///
/// - Parameter url: The URL.
/// - Returns: The request.
func makeRequest(_ url: URL) -> URLRequest {
    var request = URLRequest(url: url)
    request.timeoutInterval = 10
    return request
}

/// The session configuration shared by bare URLSession and ``NetworkRequestPerformer``: ephemeral, 16 connections
/// to a host.
func sessionConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 16
    return configuration
}

/// Reads a number of seconds from the environment.
func setting(_ name: String, default value: Double) -> Duration {
    let text = ProcessInfo.processInfo.environment[name]
    return .milliseconds(Int((text.flatMap(Double.init) ?? value) * 1_000))
}

/// Fails a phase whose response is not a 200.
struct UnexpectedStatus: Error, CustomStringConvertible {
    /// The status received.
    let status: Int
    var description: String { "status \(status)" }
}

/// Fails a phase whose response came over another protocol than the one measured.
struct UnexpectedProtocol: Error, CustomStringConvertible {
    /// The protocol the phase measures.
    let expected: String
    /// The protocol the response came over, if it says.
    let received: String?
    var description: String { "served over \(received ?? "an unnamed protocol"), not \(expected)" }
}

let environment = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
if !arguments.isEmpty && arguments != ["http2"] {
    FileHandle.standardError.write(Data("usage: TransportBenchmark [http2]\n".utf8))
    exit(64)
}
let isHTTP2Run = arguments == ["http2"]
let durations = Durations(
    warmUp: setting("TRANSPORT_BENCH_WARMUP", default: 0.5),
    measured: setting("TRANSPORT_BENCH_SECONDS", default: 3)
)
if URLSessionOverHTTPS.isChild {
    await URLSessionOverHTTPS.runChild(durations: durations, bodyBytes: Corpus.small.count)
    exit(0)
}
let phaseLimit = setting("TRANSPORT_BENCH_TIMEOUT", default: 60)
let nginxWorkers = environment["TRANSPORT_BENCH_NGINX_WORKERS"].flatMap { Int($0) } ?? 1
let filter = environment["TRANSPORT_BENCH_FILTER"] ?? ""
let concurrencies = [1, 16]
let runStart = ContinuousClock.now
let loadAtStart = loadAverage()

let server: NginxServer
do {
    server = try NginxServer(workers: nginxWorkers, http2: isHTTP2Run)
} catch {
    FileHandle.standardError.write(Data("TransportBenchmark: \(error)\n".utf8))
    exit(1)
}
let watchdog = Watchdog { [server] phase in
    FileHandle.standardError.write(
        Data("TransportBenchmark: the phase \"\(phase)\" ran past \(phaseLimit); giving up, nginx stopped\n".utf8)
    )
    server.kill()
    exit(2)
}

print("nginx \(nginxWorkers) worker(s) on 127.0.0.1:\(server.port), files in \(server.directory.path)")
print("warm-up \(durations.warmUp), measured \(durations.measured) per phase, phase limit \(phaseLimit)")
print(
    "/1k.json \(Corpus.small.count) B, /large.bin \(Corpus.large.count) B, /users.json \(Corpus.users.count) B"
)
print("\nraw results:")
print(PhaseResult.rawHeader)

/// Whether `TRANSPORT_BENCH_FILTER` lets a client run: no filter, or one of its comma-separated texts in the name.
func selected(_ name: String) -> Bool {
    filter.isEmpty || filter.split(separator: ",").contains { name.contains($0) }
}

/// Runs one phase under the watchdog and prints its raw line.
func phase(
    _ name: String,
    group: String,
    concurrency: Int,
    bodyBytes: Int,
    expected: Int? = nil,
    onLoops: Bool = false,
    request: @escaping @Sendable () async throws -> Int
) async -> PhaseResult? {
    guard selected(name) else { return nil }
    watchdog.begin("\(group): \(name) ×\(concurrency)", limit: phaseLimit)
    let result = await measure(
        name,
        concurrency: concurrency,
        durations: durations,
        bodyBytes: bodyBytes,
        expected: expected ?? bodyBytes,
        onLoops: onLoops,
        request: request
    )
    watchdog.end()
    print(result.rawLine(group: group))
    return result
}

/// Runs a phase that another program measures (wrk, h2load, URLSession's child process) under the watchdog, and prints
/// its raw line, or why there is none.
///
/// - Parameters:
///   - name: The client's name, as the filter and the report see it.
///   - group: The file the phase loaded.
///   - concurrency: The requests at once.
///   - measure: Runs the program and reads its result.
/// - Returns: The phase, or `nil` when the filter leaves it out or the program failed.
func externalPhase(
    _ name: String,
    group: String,
    concurrency: Int,
    measure: () throws -> PhaseResult
) -> PhaseResult? {
    guard selected(name) else { return nil }
    watchdog.begin("\(group): \(name) ×\(concurrency)", limit: phaseLimit)
    defer { watchdog.end() }
    do {
        let result = try measure()
        print(result.rawLine(group: group))
        return result
    } catch {
        print("(\(name) ×\(concurrency): \(error))")
        return nil
    }
}

/// Returns the body's size after checking the status, and the protocol that carried it if one is given.
///
/// - Parameters:
///   - response: Sluice's response.
///   - servedOver: The ``HTTPResponse/protocolVersion`` it must have (`HTTP/2`, `HTTP/1.1`), if any.
/// - Returns: The body's size.
/// - Throws: ``UnexpectedStatus`` for a status other than 200, ``UnexpectedProtocol`` for another protocol.
func bodySize(_ response: HTTPResponse, servedOver: String? = nil) throws -> Int {
    guard response.status.code == 200 else { throw UnexpectedStatus(status: response.status.code) }
    if let servedOver, response.protocolVersion != servedOver {
        throw UnexpectedProtocol(expected: servedOver, received: response.protocolVersion)
    }
    return response.body.count
}

/// Returns the body's size after checking the status, and the protocol nginx says it was served over if one is given.
///
/// - Parameters:
///   - answer: URLSession's answer.
///   - servedOver: The protocol the response's `X-Protocol` field must name (the HTTP/2 ports' `$server_protocol`).
/// - Returns: The body's size.
/// - Throws: ``UnexpectedStatus`` for a status other than 200, ``UnexpectedProtocol`` for another protocol.
func bodySize(_ answer: (Data, URLResponse), servedOver: String? = nil) throws -> Int {
    let (data, response) = answer
    let http = response as? HTTPURLResponse
    let status = http?.statusCode ?? 0
    guard status == 200 else { throw UnexpectedStatus(status: status) }
    if let servedOver {
        let received = http?.value(forHTTPHeaderField: "X-Protocol")
        guard received == servedOver else { throw UnexpectedProtocol(expected: servedOver, received: received) }
    }
    return data.count
}

if isHTTP2Run {
    let failed = await HTTP2Run(server: server, durations: durations, nginxWorkers: nginxWorkers).run()
    server.stop()
    exit(failed ? 1 : 0)
}

let session = URLSession(configuration: sessionConfiguration())
let delegateFloor = DelegateFloor(configuration: sessionConfiguration())
let networkClient = APIClient(requestPerformer: NetworkRequestPerformer(configuration: sessionConfiguration()))
let socketPerformer = SocketRequestPerformer(configuration: .init(maximumConnectionsPerOrigin: 16))
let socketClient = APIClient(requestPerformer: socketPerformer)
let asyncHTTPClient: AsyncHTTPClientPeer
do {
    asyncHTTPClient = try AsyncHTTPClientPeer(trusting: server.certificate)
} catch {
    FileHandle.standardError.write(Data("TransportBenchmark: async-http-client: \(error)\n".utf8))
    server.stop()
    exit(1)
}

// Small requests.
let smallURL = server.url("/1k.json")
let smallRequest = makeRequest(smallURL)
let smallBytes = Corpus.small.count
var small: [PhaseResult] = []
let wrk = findExecutable("wrk")
if wrk == nil {
    print("(wrk not found: its rows are left out)")
}

/// Runs wrk on the 1 KB document, the limit of what nginx serves here, under the watchdog, and prints its raw line.
func wrkPhase(_ url: URL, group: String, concurrency: Int) -> PhaseResult? {
    guard let wrk else { return nil }
    return externalPhase("wrk", group: group, concurrency: concurrency) {
        try runWrk(
            wrk,
            url: url,
            connections: concurrency,
            threads: min(concurrency, 2),
            durations: durations,
            bodyBytes: smallBytes
        )
    }
}

for concurrency in concurrencies {
    small += wrkPhase(smallURL, group: "1k", concurrency: concurrency).map { [$0] } ?? []
    let phases: [(String, @Sendable () async throws -> Int)] = [
        ("URLSession", { try bodySize(await session.data(for: smallRequest)) }),
        ("URLSession, delegate", { try bodySize(await delegateFloor.data(for: smallRequest)) }),
        ("async-http-client", { try await asyncHTTPClient.size(of: smallURL) }),
        ("APIClient + NetworkRequestPerformer", { try await networkClient.perform(FetchData(url: smallURL)).count }),
        ("APIClient + SocketRequestPerformer", { try await socketClient.perform(FetchData(url: smallURL)).count }),
        ("SocketRequestPerformer.perform", { try bodySize(await socketPerformer.perform(smallRequest)) }),
    ]
    for (name, request) in phases {
        let result = await phase(name, group: "1k", concurrency: concurrency, bodyBytes: smallBytes, request: request)
        small += result.map { [$0] } ?? []
    }
    let onLoops = await phase(
        "SocketRequestPerformer.perform, on the loops",
        group: "1k",
        concurrency: concurrency,
        bodyBytes: smallBytes,
        onLoops: true,
        request: { try bodySize(await socketPerformer.perform(smallRequest)) }
    )
    small += onLoops.map { [$0] } ?? []
}

// A new connection for every request over HTTP, on a port that closes each after its response: the cost of TCP alone,
// against which the new-connection rows over HTTPS show what the TLS handshake adds.
let closingURL = server.url("/1k.json", port: server.closingPort)
let closingRequest = makeRequest(closingURL)
let newConnectionPhases: [(String, @Sendable () async throws -> Int)] = [
    ("async-http-client, new connection", { try await asyncHTTPClient.size(of: closingURL, closing: true) }),
    ("SocketRequestPerformer, new connection", { try bodySize(await socketPerformer.perform(closingRequest)) }),
]
for (name, request) in newConnectionPhases {
    let result = await phase(name, group: "1k", concurrency: 1, bodyBytes: smallBytes, request: request)
    small += result.map { [$0] } ?? []
}

// The same over HTTPS, on Sluice's own transport: kept-alive connections at 1 and 16, then a new connection for every
// request, its session resumed or not, the cost of the handshake; async-http-client beside it, on the same ports (it
// resumes no session: its new connections are full handshakes on either port). URLSession runs in a
// child process that sees a CA bundle with the run's certificate (URLSessionOverHTTPS.swift): it trusts no other.
var https: [PhaseResult] = []
var tlsPerformer: SocketRequestPerformer?
if let tlsPorts = server.tlsPorts, let certificate = server.certificate {
    let tls = TLSConfiguration(additionalTrustRoots: [.file(certificate.path)])
    let performer = SocketRequestPerformer(configuration: .init(maximumConnectionsPerOrigin: 16, tls: tls))
    tlsPerformer = performer
    let client = APIClient(requestPerformer: performer)
    let url = server.httpsURL("/1k.json", port: tlsPorts.keptAlive)
    let request = makeRequest(url)
    for concurrency in concurrencies {
        https += wrkPhase(url, group: "1k https", concurrency: concurrency).map { [$0] } ?? []
        let overURLSession = externalPhase("URLSession", group: "1k https", concurrency: concurrency) {
            try URLSessionOverHTTPS.run(url, trusting: certificate, concurrency: concurrency)
        }
        https += overURLSession.map { [$0] } ?? []
        let phases: [(String, @Sendable () async throws -> Int)] = [
            ("async-http-client", { try await asyncHTTPClient.size(of: url) }),
            ("APIClient + SocketRequestPerformer", { try await client.perform(FetchData(url: url)).count }),
            ("SocketRequestPerformer.perform", { try bodySize(await performer.perform(request)) }),
        ]
        for (name, request) in phases {
            let result = await phase(
                name,
                group: "1k https",
                concurrency: concurrency,
                bodyBytes: smallBytes,
                request: request
            )
            https += result.map { [$0] } ?? []
        }
        let onLoops = await phase(
            "SocketRequestPerformer.perform, on the loops",
            group: "1k https",
            concurrency: concurrency,
            bodyBytes: smallBytes,
            onLoops: true,
            request: { try bodySize(await performer.perform(request)) }
        )
        https += onLoops.map { [$0] } ?? []
    }
    let newConnections: [(String, UInt16)] = [
        ("SocketRequestPerformer, new connection, session resumed", tlsPorts.resuming),
        ("SocketRequestPerformer, new connection, full handshake", tlsPorts.full),
    ]
    for (name, port) in newConnections {
        let request = makeRequest(server.httpsURL("/1k.json", port: port))
        let result = await phase(name, group: "1k https", concurrency: 1, bodyBytes: smallBytes) {
            try bodySize(await performer.perform(request))
        }
        https += result.map { [$0] } ?? []
    }
    let fullHandshakeURL = server.httpsURL("/1k.json", port: tlsPorts.full)
    let result = await phase(
        "async-http-client, new connection",
        group: "1k https",
        concurrency: 1,
        bodyBytes: smallBytes
    ) {
        try await asyncHTTPClient.size(of: fullHandshakeURL, closing: true)
    }
    https += result.map { [$0] } ?? []
} else {
    print("(openssl not found: the HTTPS rows are left out)")
}

// A large body, one request after another.
let largeURL = server.url("/large.bin")
let largeRequest = makeRequest(largeURL)
var large: [PhaseResult] = []
let largePhases: [(String, @Sendable () async throws -> Int)] = [
    ("URLSession", { try bodySize(await session.data(for: largeRequest)) }),
    ("async-http-client", { try await asyncHTTPClient.size(of: largeURL) }),
    ("SocketRequestPerformer.perform", { try bodySize(await socketPerformer.perform(largeRequest)) }),
]
for (name, request) in largePhases {
    let result = await phase(name, group: "1.5MB", concurrency: 1, bodyBytes: Corpus.large.count, request: request)
    large += result.map { [$0] } ?? []
}
if let tlsPerformer, let tlsPorts = server.tlsPorts {
    let url = server.httpsURL("/large.bin", port: tlsPorts.keptAlive)
    let request = makeRequest(url)
    let peer = await phase("async-http-client, HTTPS", group: "1.5MB", concurrency: 1, bodyBytes: Corpus.large.count) {
        try await asyncHTTPClient.size(of: url)
    }
    large += peer.map { [$0] } ?? []
    let result = await phase(
        "SocketRequestPerformer.perform, HTTPS",
        group: "1.5MB",
        concurrency: 1,
        bodyBytes: Corpus.large.count
    ) { try bodySize(await tlsPerformer.perform(request)) }
    large += result.map { [$0] } ?? []
}

// Fetching and decoding the user list, one request after another.
let usersURL = server.url("/users.json")
let usersRequest = makeRequest(usersURL)
let userCount = Corpus.userList.count
var decode: [PhaseResult] = []
var decodePhases: [(String, @Sendable () async throws -> Int)] = [
    (
        "URLSession + JSONDecoder",
        {
            let (data, _) = try await session.data(for: usersRequest)
            return try JSONDecoder().decode([User].self, from: data).count
        }
    ),
    ("async-http-client + JSONDecoder", { try await asyncHTTPClient.decode([User].self, from: usersURL).count }),
    ("APIClient + NetworkRequestPerformer", { try await networkClient.perform(ListUsers(url: usersURL)).count }),
    ("APIClient + SocketRequestPerformer", { try await socketClient.perform(ListUsers(url: usersURL)).count }),
]
if let tlsPerformer, let tlsPorts = server.tlsPorts {
    let url = server.httpsURL("/users.json", port: tlsPorts.keptAlive)
    let client = APIClient(requestPerformer: tlsPerformer)
    let overTLS: [(String, @Sendable () async throws -> Int)] = [
        (
            "async-http-client + JSONDecoder, HTTPS",
            { try await asyncHTTPClient.decode([User].self, from: url).count }
        ),
        ("APIClient + SocketRequestPerformer, HTTPS", { try await client.perform(ListUsers(url: url)).count }),
    ]
    decodePhases += overTLS
}
// The same list gzipped by nginx (about 8 to 1), for the clients that ask for it: URLSession always does (libcurl
// decodes), Sluice's transport does by default, async-http-client when configured to.
let gzippedUsersURL = server.url("/gz/users.json")
let gzippedUsersRequest = makeRequest(gzippedUsersURL)
let decompressingPeer = try? AsyncHTTPClientPeer(trusting: nil, decompressing: true)
let gzipPhases: [(String, @Sendable () async throws -> Int)] = [
    (
        "URLSession + JSONDecoder, gzip",
        {
            let (data, _) = try await session.data(for: gzippedUsersRequest)
            return try JSONDecoder().decode([User].self, from: data).count
        }
    ),
    (
        "async-http-client + JSONDecoder, gzip",
        {
            guard let decompressingPeer else { throw UnexpectedStatus(status: 0) }
            return try await decompressingPeer.decode([User].self, from: gzippedUsersURL).count
        }
    ),
    (
        "APIClient + SocketRequestPerformer, gzip",
        { try await socketClient.perform(ListUsers(url: gzippedUsersURL)).count }
    ),
]
decodePhases += gzipPhases
for (name, request) in decodePhases {
    // What is checked here is the number of users decoded.
    let result = await phase(
        name,
        group: "users",
        concurrency: 1,
        bodyBytes: Corpus.users.count,
        expected: userCount,
        request: request
    )
    decode += result.map { [$0] } ?? []
}

// The user list through Sluice's HTTP cache in memory: a fresh hit (`expires 1h`) never reaches nginx, a revalidated
// one (`Cache-Control: no-cache`) costs a conditional request answered 304; fetched whole without the cache beside them.
var cached: [PhaseResult] = []
let cache = HTTPCache(store: .memory(limit: 64 << 20))
let cachingClient = APIClient(requestPerformer: socketPerformer.cached(in: cache))
let cachePhases: [(String, @Sendable () async throws -> Int)] = [
    (
        "APIClient + SocketRequestPerformer, no cache",
        { try await socketClient.perform(FetchData(url: server.url("/revalidate/users.json"))).count }
    ),
    (
        "APIClient + SocketRequestPerformer + cache, revalidated",
        { try await cachingClient.perform(FetchData(url: server.url("/revalidate/users.json"))).count }
    ),
    (
        "APIClient + SocketRequestPerformer + cache, fresh hit",
        { try await cachingClient.perform(FetchData(url: server.url("/fresh/users.json"))).count }
    ),
]
for (name, request) in cachePhases {
    let result = await phase(name, group: "cache", concurrency: 1, bodyBytes: Corpus.users.count, request: request)
    cached += result.map { [$0] } ?? []
}

// Through a squid forward proxy on loopback: `http://` in absolute form, `https://` through a CONNECT tunnel. URLSession
// has no row: it takes a proxy from the environment only, which would reach every other row's requests too.
var proxied: [PhaseResult] = []
var proxiedPeer: AsyncHTTPClientPeer?
var squid: SquidProxy?
if selected("squid") || filter.isEmpty {
    do {
        let proxy = try SquidProxy()
        squid = proxy
        let viaSquid = try Proxy(url: "http://127.0.0.1:\(proxy.port)")
        let performer = SocketRequestPerformer(
            configuration: .init(
                maximumConnectionsPerOrigin: 16,
                tls: server.certificate.map { TLSConfiguration(additionalTrustRoots: [.file($0.path)]) }
                    ?? TLSConfiguration(),
                proxies: Proxy.Settings(http: viaSquid, https: viaSquid)
            )
        )
        let peer = try AsyncHTTPClientPeer(trusting: server.certificate, proxyPort: proxy.port)
        proxiedPeer = peer
        var targets: [(String, URL)] = [("", smallURL)]
        if let tlsPorts = server.tlsPorts {
            targets.append((", HTTPS", server.httpsURL("/1k.json", port: tlsPorts.keptAlive)))
        }
        for concurrency in concurrencies {
            for (suffix, url) in targets {
                let request = makeRequest(url)
                let phases: [(String, @Sendable () async throws -> Int)] = [
                    ("async-http-client through squid\(suffix)", { try await peer.size(of: url) }),
                    (
                        "SocketRequestPerformer.perform through squid\(suffix)",
                        { try bodySize(await performer.perform(request)) }
                    ),
                ]
                for (name, request) in phases {
                    let result = await phase(
                        name,
                        group: "1k proxy",
                        concurrency: concurrency,
                        bodyBytes: smallBytes,
                        request: request
                    )
                    proxied += result.map { [$0] } ?? []
                }
            }
        }
    } catch {
        print("(squid: \(error); the rows through a proxy are left out)")
    }
}

let pool = "\(socketPerformer.openConnections) open, \(socketPerformer.idleConnections) idle"
await asyncHTTPClient.shutdown()
await decompressingPeer?.shutdown()
await proxiedPeer?.shutdown()
squid?.stop()
server.stop()
let total = runStart.duration(to: .now)
print("\nSocketRequestPerformer's pool after the last phase: \(pool)")
print(String(format: "total time: %.1f s\n", total.seconds))
print(
    Report(
        small: small,
        https: https,
        proxied: proxied,
        cached: cached,
        large: large,
        decode: decode,
        usersBytes: Corpus.users.count,
        durations: durations,
        nginxWorkers: nginxWorkers,
        loads: (loadAtStart, loadAverage())
    )
    .markdown
)
let failed = (small + https + proxied + cached + large + decode).filter { $0.errors > 0 }
for result in failed {
    print("errors: \(result.name) ×\(result.concurrency): \(result.errors), first: \(result.firstError ?? "?")")
}
exit(failed.isEmpty ? 0 : 1)
