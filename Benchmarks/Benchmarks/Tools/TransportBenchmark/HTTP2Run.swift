// The HTTP/2 rows: `swift run -c release TransportBenchmark http2`.
//
// nginx listens on two more ports that speak HTTP/2 (Server.swift): `listen … ssl http2`, where a client that offers
// `h2` by ALPN gets HTTP/2 and one that offers only `http/1.1` gets that, and `listen … http2`, HTTP/2 over cleartext
// by prior knowledge (h2c). Both serve the 1 KB document and the 1.5 MB user list, with a field `X-Protocol` naming
// the protocol nginx served the request over.
//
// Over TLS, at 1, 16 and 100 requests at once: h2load on one connection, URLSession (libcurl, in the child process of
// URLSessionOverHTTPS.swift), async-http-client (HTTP/2 by ALPN, its default), Sluice's transport over HTTP/2 (ALPN, its
// default) and over HTTP/1.1 (`http2.isEnabled = false` on the same port, a connection for each request at once). By
// prior knowledge: h2load, and Sluice's transport over HTTP/2, beside its HTTP/1.1 on the cleartext HTTP/1.1 port;
// neither async-http-client nor URLSession on Linux can speak h2c.
//
// Every response is checked: its status, its body's size, and the protocol it came over (Sluice's
// `HTTPResponse.protocolVersion`, async-http-client's `HTTPClientResponse.version`, nginx's `X-Protocol` for
// URLSession; h2load's own counts of completed responses and `DATA` bytes).
import Foundation
import Sluice

/// The HTTP/2 run of the tool.
struct HTTP2Run {
    /// The requests at once of every client.
    static let concurrencies = [1, 16, 100]

    /// One file the run loads.
    struct Document {
        /// Its name in the groups (`1k`).
        let label: String
        /// Its path on the server.
        let path: String
        /// Its size.
        let bytes: Int
    }

    /// The clients measured in this process.
    private struct Clients {
        /// Sluice's transport over HTTP/2: ALPN `h2` over TLS, prior knowledge on nginx's h2c port.
        let http2: SocketRequestPerformer
        /// Sluice's transport kept on HTTP/1.1, with a connection for each request at once.
        let http1: SocketRequestPerformer
        /// async-http-client, HTTP/2 by ALPN; `nil` when it could not be made.
        let peer: AsyncHTTPClientPeer?
    }

    /// An nginx started with its HTTP/2 ports.
    let server: NginxServer
    /// The warm-up and measured times.
    let durations: Durations
    /// nginx's worker processes, for the report.
    let nginxWorkers: Int
    /// h2load, when it is installed.
    let h2load = findExecutable("h2load")

    /// Measures every client on both files over both schemes, and prints the raw lines and then the tables.
    ///
    /// - Returns: Whether any phase had an error.
    func run() async -> Bool {
        guard let ports = server.http2Ports else {
            print("(nginx has no HTTP/2 ports)")
            return true
        }
        let loadAtStart = loadAverage()
        if let reason = SocketRequestPerformer.http2UnavailableReason {
            print("(Sluice's transport speaks no HTTP/2 here: \(reason); its HTTP/2 rows will fail)")
        }
        if h2load == nil {
            print("h2load: not installed (Debian: apt-get install nghttp2-client); its rows are left out")
        }
        let tls = server.certificate.map { TLSConfiguration(additionalTrustRoots: [.file($0.path)]) }
        let peer: AsyncHTTPClientPeer?
        do {
            peer = try AsyncHTTPClientPeer(trusting: server.certificate, http2: true)
        } catch {
            print("(async-http-client: \(error); its rows are left out)")
            peer = nil
        }
        let clients = Clients(
            http2: SocketRequestPerformer(
                configuration: .init(
                    tls: tls ?? TLSConfiguration(),
                    http2: .init(priorKnowledge: ["127.0.0.1:\(ports.cleartext)"])
                )
            ),
            http1: SocketRequestPerformer(
                configuration: .init(
                    maximumConnectionsPerOrigin: Self.concurrencies.max() ?? 1,
                    tls: tls ?? TLSConfiguration(),
                    http2: .init(isEnabled: false)
                )
            ),
            peer: peer
        )
        let documents = [
            Document(label: "1k", path: "/1k.json", bytes: Corpus.small.count),
            Document(label: "users", path: "/users.json", bytes: Corpus.users.count),
        ]
        var groups: [HTTP2Report.Group] = []
        for document in documents {
            if let port = ports.tls, let certificate = server.certificate {
                groups.append(await overTLS(document, port: port, certificate: certificate, clients: clients))
            }
            groups.append(await overCleartext(document, port: ports.cleartext, clients: clients))
        }

        print(
            "\nSluice's pools after the last phase: HTTP/2 \(clients.http2.openConnections) open, "
                + "HTTP/1.1 \(clients.http1.openConnections) open"
        )
        await peer?.shutdown()
        let report = HTTP2Report(
            groups: groups,
            h2loadMissing: h2load == nil,
            durations: durations,
            nginxWorkers: nginxWorkers,
            loads: (loadAtStart, loadAverage())
        )
        print("\n" + report.markdown)
        let failed = groups.flatMap(\.results).filter { $0.errors > 0 }
        for result in failed {
            print("errors: \(result.name) ×\(result.concurrency): \(result.errors), first: \(result.firstError ?? "?")")
        }
        return !failed.isEmpty
    }

    /// The rows over TLS: h2load, URLSession, async-http-client and Sluice's transport over HTTP/2, and Sluice's over
    /// HTTP/1.1 on the same port.
    private func overTLS(
        _ document: Document,
        port: UInt16,
        certificate: URL,
        clients: Clients
    ) async -> HTTP2Report.Group {
        let url = server.httpsURL(document.path, port: port)
        let request = makeRequest(url)
        let group = "\(document.label) TLS"
        var results: [PhaseResult] = []
        for concurrency in Self.concurrencies {
            results += h2loadPhase(url, group: group, concurrency: concurrency, bytes: document.bytes)
            let session = externalPhase("URLSession", group: group, concurrency: concurrency) {
                try URLSessionOverHTTPS.run(
                    url,
                    trusting: certificate,
                    concurrency: concurrency,
                    bodyBytes: document.bytes,
                    servedOver: "HTTP/2.0"
                )
            }
            results += session.map { [$0] } ?? []
            var inProcess: [(String, @Sendable () async throws -> Int)] = [
                (
                    HTTP2Report.http2Name,
                    { try bodySize(await clients.http2.perform(request), servedOver: "HTTP/2") }
                ),
                (
                    HTTP2Report.http1Name,
                    { try bodySize(await clients.http1.perform(request), servedOver: "HTTP/1.1") }
                ),
            ]
            if let peer = clients.peer {
                inProcess.insert((HTTP2Report.peerName, { try await peer.size(of: url) }), at: 0)
            }
            results += await measured(inProcess, group: group, concurrency: concurrency, bytes: document.bytes)
        }
        return HTTP2Report.Group(
            name: group,
            title:
                "`GET \(document.path)` over TLS (\(document.bytes) bytes; HTTP/2 by ALPN, HTTP/1.1 on the same port)",
            results: results
        )
    }

    /// The rows over cleartext: h2load and Sluice's transport over HTTP/2 by prior knowledge, and Sluice's over
    /// HTTP/1.1 on nginx's HTTP/1.1 port.
    private func overCleartext(_ document: Document, port: UInt16, clients: Clients) async -> HTTP2Report.Group {
        let url = server.url(document.path, port: port)
        let request = makeRequest(url)
        let http1Request = makeRequest(server.url(document.path))
        let group = "\(document.label) h2c"
        var results: [PhaseResult] = []
        for concurrency in Self.concurrencies {
            results += h2loadPhase(url, group: group, concurrency: concurrency, bytes: document.bytes)
            let inProcess: [(String, @Sendable () async throws -> Int)] = [
                (
                    HTTP2Report.http2Name,
                    { try bodySize(await clients.http2.perform(request), servedOver: "HTTP/2") }
                ),
                (
                    HTTP2Report.http1Name,
                    { try bodySize(await clients.http1.perform(http1Request), servedOver: "HTTP/1.1") }
                ),
            ]
            results += await measured(inProcess, group: group, concurrency: concurrency, bytes: document.bytes)
        }
        return HTTP2Report.Group(
            name: group,
            title: "`GET \(document.path)` over cleartext (\(document.bytes) bytes; HTTP/2 by prior knowledge, "
                + "HTTP/1.1 on nginx's HTTP/1.1 port)",
            results: results
        )
    }

    /// Measures each client in turn in this process.
    private func measured(
        _ clients: [(String, @Sendable () async throws -> Int)],
        group: String,
        concurrency: Int,
        bytes: Int
    ) async -> [PhaseResult] {
        var results: [PhaseResult] = []
        for (name, request) in clients {
            let result = await phase(name, group: group, concurrency: concurrency, bodyBytes: bytes, request: request)
            results += result.map { [$0] } ?? []
        }
        return results
    }

    /// h2load's phase when it is installed, its log in nginx's directory.
    private func h2loadPhase(_ url: URL, group: String, concurrency: Int, bytes: Int) -> [PhaseResult] {
        guard let h2load else { return [] }
        let result = externalPhase("h2load", group: group, concurrency: concurrency) {
            try runH2load(
                h2load,
                url: url,
                concurrency: concurrency,
                durations: durations,
                bodyBytes: bytes,
                log: server.directory.appendingPathComponent("h2load.log")
            )
        }
        return result.map { [$0] } ?? []
    }
}
