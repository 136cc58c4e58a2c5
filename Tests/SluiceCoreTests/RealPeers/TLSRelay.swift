import ClientFixtures
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the TLS relay tests can run: socat and openssl are there, or the run requires them.
let tlsRelayPresent = (TLSRelay.executable != nil && TestPKI.executable != nil) || NginxServer.isRequired

/// Why the TLS relay tests are skipped.
let tlsRelayMissing: Comment = "socat or openssl is missing; SLUICE_REQUIRE_PEERS=1 makes their absence a failure"

/// socat in front of a plain server: TLS on a free loopback port, every byte relayed to the server and back as it is.
///
/// nginx in front of a server answers a malformed or cut response with a 502 of its own; socat does not read HTTP,
/// so the loopback server's scripted faults reach Sluice's transport inside TLS exactly as they would over plain
/// TCP. A connection to the relay is one to the server (socat forks for each), and the relay's end of a connection
/// is the server's: socat ends the TLS stream with `close_notify` when the server closes.
final class TLSRelay: @unchecked Sendable {
    /// The socat executable: the first `socat` on `PATH`, else `/usr/bin/socat`; `nil` when there is none.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/socat" } + ["/usr/bin/socat"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    /// The loopback port it takes TLS connections on.
    let port: Int
    private let process: ChildProcess

    /// Starts socat, and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - upstreamPort: The plain server's loopback port.
    ///   - chain: The certificate chain to present, its own certificate first.
    ///   - key: Its private key.
    /// - Throws: ``NginxServerError`` when socat is missing or did not start.
    init(upstreamPort: Int, chain: URL, key: URL) throws {
        guard let executable = Self.executable else {
            throw NginxServerError(description: "socat is not on PATH or at /usr/bin/socat")
        }
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = try NginxServer.freePort()
            // Its messages go to a file, which nothing has to drain while it runs.
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-socat-\(UUID()).log")
            try Data().write(to: log)
            let errors = try FileHandle(forWritingTo: log)
            defer {
                try? errors.close()
                try? FileManager.default.removeItem(at: log)
            }
            // At notice level (-d -d) socat says when it listens: the port taken from freePort() may be taken
            // again by another test's server before socat binds it, which then fails while the port still accepts
            // connections (plain HTTP ones). Its listen backlog is raised from socat's 5: fifty connections at once
            // overflowed it while socat forked for the first, and a connection whose handshake the full queue dropped
            // looked established to the client, whose TLS handshake then waited past its connect timeout.
            let process = try ChildProcess(
                executable,
                [
                    "-d", "-d", "-T", "60",
                    "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,backlog=128,cert=\(chain.path),key=\(key.path),verify=0",
                    "TCP:127.0.0.1:\(upstreamPort)",
                ],
                standardError: .file(errors)
            )
            let listening = { (try? String(contentsOf: log, encoding: .utf8))?.contains(" listening on ") == true }
            if process.waitUntilReady(within: .seconds(30), listening) {
                self.port = port
                self.process = process
                return
            }
            process.terminate()
            process.waitUntilExit(timeout: .seconds(5))
            lastError = (try? String(contentsOf: log, encoding: .utf8)) ?? "no message"
        }
        throw NginxServerError(description: "socat did not start: \(lastError)")
    }

    deinit {
        process.terminate()
    }

    /// The URL of a path through the relay: `https://localhost:<port><path>`.
    ///
    /// - Parameter path: The path, with its leading `/`.
    /// - Returns: The URL.
    func url(_ path: String) -> URL {
        URL(string: "https://localhost:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }
}
