// A reverse proxy that puts Sluice's private HTTP cache in front of an origin, for the HTTP cache conformance suite
// (http-tests/cache-tests): each request that reaches its loopback port is performed through an `HTTPCache` in front
// of Sluice's own transport to the origin, and the answer, from the cache or the origin, is written back.
//
//     swift build --product cache-tests-proxy
//     .build/debug/cache-tests-proxy http://127.0.0.1:8000
//
// It prints `listening on http://127.0.0.1:PORT` once it accepts connections, on a port the system picks, and runs
// until it is stopped. `.ci/cache-tests.sh` starts it between the suite's origin server and the suite's client.
import Dispatch
import Foundation
import SluiceCore
import SluiceTesting

@main
enum CacheTestsProxy {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 1, let origin = arguments.first.flatMap(URL.init(string:)), origin.scheme == "http",
            origin.host != nil
        else {
            fail("usage: cache-tests-proxy ORIGIN, an http:// URL such as http://127.0.0.1:8000")
        }
        let relay = CacheRelay(origin: origin)
        let server: LoopbackServer
        do {
            server = try LoopbackServer()
        } catch {
            fail("cache-tests-proxy: cannot listen on a loopback port: \(error)")
        }
        server.route(nil, "/*") { relay.answer($0) }
        // Written unbuffered: standard output is a pipe to the script that waits for this line.
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        dispatchMain()
    }

    /// Writes a message to standard error and exits with status 2.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(2)
    }
}

/// Performs the requests a client sends to the proxy through the cache, as a reverse proxy would: to the origin's
/// scheme, host and port, with the request's own target, method, fields and body.
///
/// The hop-by-hop fields (RFC 9110, 7.6.1) and the framing fields are the connection's, not the message's: they are
/// dropped on the way in and out, and each side's transport writes its own.
struct CacheRelay: Sendable {
    /// The fields that belong to one connection, or that the transport on each side writes itself.
    private static let connectionFields: Set<Header> = [
        "Connection", "Keep-Alive", "Proxy-Connection", "TE", "Transfer-Encoding", "Upgrade", "Trailer",
        "Content-Length", "Host", "Expect",
    ]

    /// The origin's root URL, without a trailing slash.
    let origin: String
    /// The cache, in memory, in front of Sluice's own transport.
    let performer: CachingPerformer

    /// Creates a relay to an origin.
    ///
    /// The transport hands redirects and bodies back as the origin sent them, and keeps no cookies: what the client
    /// sent and what the origin answered is what passes the cache.
    ///
    /// - Parameter origin: The origin's root URL.
    init(origin: URL) {
        var root = origin.absoluteString
        while root.hasSuffix("/") {
            root.removeLast()
        }
        self.origin = root
        let transport = SocketRequestPerformer(
            configuration: .init(decompressesBodies: false, maximumRedirects: 0, proxies: .none, cookies: .disabled)
        )
        performer = transport.cached(in: HTTPCache(store: .memory(limit: 64 << 20)))
    }

    /// Answers one request, blocking the calling thread until the cache has the answer.
    ///
    /// A route's closure is synchronous and runs on its connection's own thread, so that thread waits for a task on
    /// the cooperative pool.
    ///
    /// - Parameter request: The request as the proxy received it.
    /// - Returns: The answer to write back; a `502` naming what failed when the cache or the origin threw.
    func answer(_ request: LoopbackServer.Request) -> LoopbackServer.Response {
        guard let url = URL(string: origin + request.target) else {
            let target = request.target.debugDescription
            return .text(
                "cache-tests-proxy: the request target \(target) does not make a URL on the origin",
                status: 400
            )
        }
        var outgoing = URLRequest(url: url)
        outgoing.httpMethod = request.method
        let dropped = Self.fieldsToDrop(request.headers)
        for field in request.headers where !dropped.contains(field.name) {
            outgoing.addValue(field.value, forHTTPHeaderField: field.name.name)
        }
        if !request.body.isEmpty {
            outgoing.httpBody = request.body
        }
        let outcome = Outcome()
        let performer = self.performer
        Task {
            do {
                outcome.result = .success(try await performer.perform(outgoing))
            } catch {
                outcome.result = .failure(error)
            }
            outcome.done.signal()
        }
        outcome.done.wait()
        switch outcome.result {
        case .success(let response):
            let dropped = Self.fieldsToDrop(response.headers.fields)
            return LoopbackServer.Response(
                status: response.status.code,
                headers: response.headers.fields.filter { !dropped.contains($0.name) },
                body: response.body
            )
        case .failure(let error):
            let message = "cache-tests-proxy: \(request.method) \(request.target) failed: \(error)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            return .text(message, status: 502)
        case nil:
            return .text("cache-tests-proxy: \(request.method) \(request.target) ended without an answer", status: 502)
        }
    }

    /// The connection's fields of a message: the fixed ones and those its `Connection` field names.
    private static func fieldsToDrop(_ fields: [HTTPHeaders.Field]) -> Set<Header> {
        var names = connectionFields
        for field in fields where field.name == "Connection" {
            for option in FieldList.elements(of: field.value) {
                names.insert(Header(String(option)))
            }
        }
        return names
    }
}

/// The outcome of one request, handed from the task that performed it to the thread that waits.
private final class Outcome: @unchecked Sendable {
    // Written by the task before it signals, read by the waiting thread after: the semaphore orders the two.
    var result: Result<HTTPResponse, any Error>?
    let done = DispatchSemaphore(value: 0)
}
