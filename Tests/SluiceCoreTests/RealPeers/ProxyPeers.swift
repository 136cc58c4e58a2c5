import ClientFixtures
// Real proxies no one here wrote, run as child processes on free loopback ports: squid, a forward proxy that also
// opens CONNECT tunnels, and microsocks, a SOCKS5 server. Each keeps everything it writes in a temporary directory of
// its own.
//
// microsocks rather than Debian's dante-server: dante checks user names and passwords against the system's accounts,
// which a test cannot create without privileges, while microsocks takes the pair on its command line (RFC 1929), so the
// test with and without authentication runs as any user.
import Foundation
import SluiceCore
import TestSupport
import Testing

// Processes, users and signals come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A proxy process the tests started, stopped by ``stop()`` or deinitialization.
final class ProxyPeer: Sendable {
    /// A user name and password the proxy requires.
    struct Credentials: Sendable {
        /// The user name.
        var username: String
        /// The password.
        var password: String
    }

    /// The loopback port it listens on.
    let port: Int
    /// Its directory: configuration, logs, password file.
    let directory: URL
    private let process: ChildProcess
    private let exited: Signal

    /// Whether a run requires the peers: with `SLUICE_REQUIRE_PEERS=1`, a missing proxy fails its tests.
    static let isRequired = NginxServer.isRequired

    /// The squid executable, on `PATH` or in `/usr/sbin`.
    static let squid = executable("squid")
    /// The microsocks executable, on `PATH` or in `/usr/bin`.
    static let microsocks = executable("microsocks")

    /// Why the squid tests are skipped.
    static let squidMissing: Comment =
        "squid or openssl is missing; SLUICE_REQUIRE_PEERS=1 makes their absence a failure"
    /// Why the SOCKS5 tests are skipped.
    static let microsocksMissing: Comment =
        "microsocks is missing; SLUICE_REQUIRE_PEERS=1 makes its absence a failure"

    /// Starts squid on a free loopback port, forwarding and tunnelling for loopback clients, requiring a user name and
    /// password when given them (a password file made with `openssl passwd -apr1`, checked by squid's
    /// `basic_ncsa_auth`).
    ///
    /// - Parameter credentials: The user name and password to require, if any.
    /// - Returns: The running proxy, or `nil` when squid or openssl is missing.
    /// - Throws: ``ProxyPeerError`` when it did not start.
    static func startSquid(requiring credentials: Credentials? = nil) async throws -> ProxyPeer? {
        guard let squid, let openssl = TestPKI.executable else { return nil }
        return try await offThePool {
            let directory = try makeDirectory("squid")
            let port = try freePort()
            let path = directory.path
            var access = "http_access allow localhost\n"
            if let credentials {
                let hash = try run(openssl, ["passwd", "-apr1", credentials.password])
                try Data("\(credentials.username):\(hash)\n".utf8).write(
                    to: directory.appendingPathComponent("htpasswd")
                )
                let helper = squid.deletingLastPathComponent().deletingLastPathComponent()
                    .appendingPathComponent("lib/squid/basic_ncsa_auth").path
                access = """
                    auth_param basic program \(helper) \(path)/htpasswd
                    auth_param basic realm sluice
                    acl authenticated proxy_auth REQUIRED
                    http_access deny !authenticated
                    http_access allow localhost

                    """
            }
            let configuration = """
                http_port 127.0.0.1:\(port)
                pid_filename \(path)/squid.pid
                access_log stdio:\(path)/access.log squid
                cache_log \(path)/cache.log
                cache_store_log none
                netdb_filename none
                cache deny all
                coredump_dir \(path)
                shutdown_lifetime 0 seconds
                \(access)http_access deny all

                """
            try Data(configuration.utf8).write(to: directory.appendingPathComponent("squid.conf"))
            try handOver(directory)
            return try ProxyPeer(
                squid,
                ["-N", "-f", "\(path)/squid.conf"],
                directory: directory,
                port: port
            )
        }
    }

    /// Starts microsocks on a free loopback port.
    ///
    /// - Parameter credentials: The user name and password to require, if any.
    /// - Returns: The running proxy, or `nil` when microsocks is missing.
    /// - Throws: ``ProxyPeerError`` when it did not start.
    static func startMicrosocks(requiring credentials: Credentials? = nil) async throws -> ProxyPeer? {
        guard let microsocks else { return nil }
        return try await offThePool {
            let directory = try makeDirectory("socks")
            let port = try freePort()
            var arguments = ["-i", "127.0.0.1", "-p", "\(port)"]
            if let credentials {
                arguments += ["-u", credentials.username, "-P", credentials.password]
            }
            return try ProxyPeer(microsocks, arguments, directory: directory, port: port)
        }
    }

    /// Starts a process and waits, 10 seconds at most, until its port accepts connections.
    private init(_ executable: URL, _ arguments: [String], directory: URL, port: Int) throws {
        let output = directory.appendingPathComponent("output.log")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = try ChildProcess(
            executable,
            arguments,
            directory: directory,
            standardOutput: .file(handle),
            standardError: .file(handle)
        )
        let exited = process.exited
        self.process = process
        self.exited = exited
        self.port = port
        self.directory = directory
        // The proxies tell their parent nothing when they are ready: readiness is polled, within a bound.
        guard process.waitUntilReady(within: .seconds(30), { NginxServer.acceptsConnections(port: port) }) else {
            stop()
            throw ProxyPeerError(
                description: "\(executable.path) did not start on port \(port): \(log("output.log"))\(log("cache.log"))"
            )
        }
    }

    deinit {
        stop()
    }

    /// The proxy's URL, with the credentials given, percent-encoded.
    func url(scheme: String = "http", _ credentials: Credentials? = nil) -> String {
        let userInformation = credentials.map { credentials in
            let allowed = CharacterSet.alphanumerics
            let user = credentials.username.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            let password = credentials.password.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            return "\(user):\(password)@"
        }
        return "\(scheme)://\(userInformation ?? "")127.0.0.1:\(port)"
    }

    /// Ends the process, and waits for it to exit, 10 seconds at most: squid writes its access log as it goes, and
    /// a tunnel's line once the tunnel closes, which it does when it stops.
    func stop() {
        if process.isRunning {
            process.terminate()
            _ = try? exited.block(timeout: .seconds(10))
        }
    }

    /// A file of its directory as text; empty when there is none.
    func log(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    /// Removes its directory, once it has stopped.
    func removeDirectory() {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new directory under `/tmp`.
    private static func makeDirectory(_ name: String) throws -> URL {
        var template = Array("/tmp/sluice-\(name).XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw ProxyPeerError(description: "mkdtemp failed: errno \(errno)")
        }
        return URL(fileURLWithPath: String(cString: created), isDirectory: true)
    }

    /// Gives the directory to the user squid runs as: started as root, squid drops to `proxy` before it writes.
    private static func handOver(_ directory: URL) throws {
        guard geteuid() == 0, let user = getpwnam("proxy") else { return }
        let paths =
            [directory.path]
            + ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .map { directory.appendingPathComponent($0).path }
        for path in paths where chown(path, user.pointee.pw_uid, user.pointee.pw_gid) != 0 {
            throw ProxyPeerError(description: "chown \(path) failed: errno \(errno)")
        }
    }

    /// A loopback port that was free a moment ago.
    private static func freePort() throws -> Int {
        let socket = try SilentListener.listeningSocket()
        defer { socket.closeDescriptor() }
        return SilentListener.port(of: socket)
    }

    /// Runs a command to its end.
    ///
    /// - Returns: What it wrote, trimmed.
    private static func run(_ executable: URL, _ arguments: [String]) throws -> String {
        let pipe = Pipe()
        let process = try ChildProcess(executable, arguments, standardOutput: .pipe(pipe))
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ProxyPeerError(description: "\(executable.path) \(arguments.first ?? "") failed")
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An executable by name, on `PATH` or in the system's directories.
    private static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/\(name)" } + ["/usr/sbin/\(name)", "/usr/bin/\(name)"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }
}

/// A proxy that did not start, with what it said.
struct ProxyPeerError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}
