// The nginx the benchmark measures against: its files, its configuration and its process, all in one temporary
// directory that is removed when the server stops.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One user of the `/users.json` list.
struct User: Codable, Sendable {
    /// The user's number.
    let id: Int
    /// The user's full name.
    let name: String
    /// The user's address.
    let email: String
    /// When the account was made, as ISO 8601 text.
    let createdAt: String
    /// A paragraph about the user; it brings each entry to about 1.5 KB, so that the list weighs about 1.5 MB.
    let bio: String
}

/// The files nginx serves, the same bytes on every run.
enum Corpus {
    /// A JSON object of about 1 KB.
    static let small: Data = {
        let tags = (0..<12).map { "\"tag-\($0)\"" }.joined(separator: ",")
        let items = (0..<10).map { #"{"index":\#($0),"label":"item number \#($0)","enabled":\#($0 % 2 == 0)}"# }
        let text =
            #"{"id":42,"name":"Sluice transport benchmark","version":"1.0.0","tags":[\#(tags)],"#
            + #""items":[\#(items.joined(separator: ","))],"#
            + #""description":"A small deterministic document served by nginx to time one request end to end."}"#
        return Data(text.utf8)
    }()

    /// 1.5 MiB of a repeating byte pattern.
    static let large: Data = Data((0..<(3 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    /// The 1,000 users, in order.
    static let userList: [User] = {
        let sentence = "Writes software, reads the manual first, and keeps the test suite green on every platform. "
        let bio = String(repeating: sentence, count: 15)
        return (1...1_000).map { index in
            User(
                id: index,
                name: "User Number \(index)",
                email: "user.\(index)@example.com",
                createdAt: String(
                    format: "2024-%02d-%02dT%02d:%02d:00Z",
                    index % 12 + 1,
                    index % 28 + 1,
                    index % 24,
                    index % 60
                ),
                bio: "\(index): \(bio)"
            )
        }
    }()

    /// The users as a JSON array, about 1.5 MB.
    static let users: Data = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(userList)
        } catch {
            fatalError("the user list does not encode: \(error)")
        }
    }()
}

/// Errors starting the server.
struct ServerError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// An nginx serving ``Corpus`` on a free loopback port, from a temporary directory of its own, and over TLS on three
/// more when `openssl` is there to make a certificate; with HTTP/2 asked for, on two more that speak it.
final class NginxServer: @unchecked Sendable {
    /// The ports it listens on with TLS, each serving the same files.
    struct TLSPorts {
        /// Connections kept alive, as on ``NginxServer/port``.
        let keptAlive: UInt16
        /// A connection per request, its session resumed from the last one's (tickets and a session cache).
        let resuming: UInt16
        /// A connection per request, each a full handshake: no tickets, no session cache.
        let full: UInt16
    }

    /// The ports that speak HTTP/2, each serving the same files with a field `X-Protocol` naming the protocol the
    /// request came in (nginx's `$server_protocol`: `HTTP/2.0`, or `HTTP/1.1` on the TLS port to a client that
    /// offered only that by ALPN).
    struct HTTP2Ports {
        /// `listen … ssl http2`: HTTP/2 to a client that offers `h2` by ALPN, HTTP/1.1 otherwise; `nil` without
        /// `openssl`.
        let tls: UInt16?
        /// `listen … http2`: HTTP/2 over cleartext by prior knowledge (h2c), nothing else.
        let cleartext: UInt16
    }

    /// The port it listens on.
    let port: UInt16
    /// A port serving the same files over HTTP that closes each connection after one response: a new TCP connection
    /// for every request, the cost of TCP alone beside the TLS ports' handshakes.
    let closingPort: UInt16
    /// The ports it listens on with TLS; `nil` without `openssl`.
    let tlsPorts: TLSPorts?
    /// The ports that speak HTTP/2; `nil` unless asked for.
    let http2Ports: HTTP2Ports?
    /// The self-signed certificate of the TLS ports, for `127.0.0.1`: the one root a client must trust.
    let certificate: URL?
    /// The number of nginx worker processes.
    let workers: Int
    /// The directory holding the configuration, the files, the logs and the temporary files.
    let directory: URL
    private let process: Process

    /// Writes the files and the configuration, starts nginx and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - workers: The number of worker processes.
    ///   - http2: Whether to listen on ``http2Ports`` too.
    /// - Throws: ``ServerError`` when nginx is missing, does not start or never accepts a connection.
    init(workers: Int, http2: Bool = false) throws {
        guard let executable = findExecutable("nginx", extra: ["/usr/sbin", "/usr/local/sbin"]) else {
            throw ServerError(description: "nginx not found; on Debian: apt-get install -y nginx-light wrk")
        }
        self.workers = workers
        let fileManager = FileManager.default
        directory = fileManager.temporaryDirectory.appendingPathComponent("sluice-transport-\(getpid())")
        try? fileManager.removeItem(at: directory)
        let root = directory.appendingPathComponent("www")
        try fileManager.createDirectory(at: root, withIntermediateDirectories: true)
        // Workers run as an unprivileged user when nginx is started as root: they must read the files.
        chmod(directory.path, 0o755)
        chmod(root.path, 0o755)
        try Corpus.small.write(to: root.appendingPathComponent("1k.json"))
        try Corpus.large.write(to: root.appendingPathComponent("large.bin"))
        try Corpus.users.write(to: root.appendingPathComponent("users.json"))

        let certificate = Self.makeCertificate(in: directory)
        self.certificate = certificate
        var lastError = "no attempt"
        for _ in 0..<5 {
            let port = try freePort()
            let closingPort = try freePort()
            let tlsPorts =
                certificate == nil
                ? nil : TLSPorts(keptAlive: try freePort(), resuming: try freePort(), full: try freePort())
            let http2Ports =
                http2 ? HTTP2Ports(tls: certificate == nil ? nil : try freePort(), cleartext: try freePort()) : nil
            let configuration = directory.appendingPathComponent("nginx.conf")
            let text = Self.configuration(
                directory: directory.path,
                port: port,
                closingPort: closingPort,
                tlsPorts: tlsPorts,
                http2Ports: http2Ports,
                workers: workers,
                modules: Self.temporaryPathModules(executable)
            )
            try Data(text.utf8).write(to: configuration)
            let process = Process()
            process.executableURL = executable
            process.arguments = ["-p", directory.path, "-e", directory.appendingPathComponent("error.log").path]
            process.arguments? += ["-c", configuration.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let tlsListening = tlsPorts.map { waitForListener(port: $0.full, process: process) } ?? true
            let http2Listening = [http2Ports?.cleartext, http2Ports?.tls].compactMap { $0 }.allSatisfy {
                waitForListener(port: $0, process: process)
            }
            if waitForListener(port: port, process: process) && waitForListener(port: closingPort, process: process)
                && tlsListening && http2Listening
            {
                self.port = port
                self.closingPort = closingPort
                self.tlsPorts = tlsPorts
                self.http2Ports = http2Ports
                self.process = process
                return
            }
            if process.isRunning {
                process.terminate()
            }
            process.waitUntilExit()
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            lastError = log.isEmpty ? "nginx exited with status \(process.terminationStatus)" : log
        }
        throw ServerError(description: "nginx did not start: \(lastError)")
    }

    /// Stops nginx (a fast shutdown) and removes the directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops nginx from any thread, waiting at most three seconds, and removes the directory; for a run that is
    /// giving up.
    func kill() {
        if process.isRunning {
            process.terminate()
        }
        for _ in 0..<60 where process.isRunning {
            usleep(50_000)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The URL of a path on the server.
    ///
    /// - Parameters:
    ///   - path: The path, starting with a slash.
    ///   - port: The port: ``port`` unless given (``closingPort``).
    /// - Returns: The URL.
    func url(_ path: String, port: UInt16? = nil) -> URL {
        guard let url = URL(string: "http://127.0.0.1:\(port ?? self.port)\(path)") else {
            fatalError("no URL for \(path)")
        }
        return url
    }

    /// The URL of a path on a TLS port.
    ///
    /// - Parameters:
    ///   - path: The path, starting with a slash.
    ///   - port: The port, one of ``tlsPorts``.
    /// - Returns: The URL.
    func httpsURL(_ path: String, port: UInt16) -> URL {
        guard let url = URL(string: "https://127.0.0.1:\(port)\(path)") else {
            fatalError("no URL for \(path)")
        }
        return url
    }

    /// Makes a self-signed certificate for `127.0.0.1` (EC P-256, as most services now use) with `openssl`.
    ///
    /// - Returns: The certificate, beside its key `tls.key`; `nil` without `openssl`.
    private static func makeCertificate(in directory: URL) -> URL? {
        guard let openssl = findExecutable("openssl") else { return nil }
        let certificate = directory.appendingPathComponent("tls.pem")
        let key = directory.appendingPathComponent("tls.key")
        _ = run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.path,
                "-out", certificate.path, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1",
            ]
        )
        chmod(key.path, 0o644)
        return FileManager.default.fileExists(atPath: certificate.path) ? certificate : nil
    }

    /// The files and the certificate of a server block on a TLS port.
    private static func tlsDirectives(directory: String) -> String {
        """
                root \(directory)/www;
                ssl_certificate \(directory)/tls.pem;
                ssl_certificate_key \(directory)/tls.key;
                ssl_protocols TLSv1.2 TLSv1.3;
        """
    }

    /// The server blocks of the TLS ports.
    private static func tlsServers(directory: String, ports: TLSPorts) -> String {
        let common = tlsDirectives(directory: directory)
        return """
                server {
                    listen 127.0.0.1:\(ports.keptAlive) ssl;
            \(common)
                }
                server {
                    listen 127.0.0.1:\(ports.resuming) ssl;
            \(common)
                    keepalive_requests 1;
                    ssl_session_cache shared:resuming:1m;
                    ssl_session_tickets on;
                }
                server {
                    listen 127.0.0.1:\(ports.full) ssl;
            \(common)
                    keepalive_requests 1;
                    ssl_session_cache off;
                    ssl_session_tickets off;
                }
            """
    }

    /// The server blocks of the HTTP/2 ports, with nginx's defaults for HTTP/2 (128 streams at once on a
    /// connection, 8 KB `DATA` frames).
    private static func http2Servers(directory: String, ports: HTTP2Ports) -> String {
        let tls = ports.tls.map { port in
            """
                server {
                    listen 127.0.0.1:\(port) ssl http2;
            \(tlsDirectives(directory: directory))
                    add_header X-Protocol $server_protocol always;
                }

            """
        }
        return (tls ?? "") + """
                server {
                    listen 127.0.0.1:\(ports.cleartext) http2;
                    root \(directory)/www;
                    add_header X-Protocol $server_protocol always;
                    # With sendfile, nginx 1.22's responses over h2c stall on the client's delayed ACK, about 40 ms
                    # each at one stream (23 requests/s, h2load's as any client's); without it they do not.
                    sendfile off;
                }
            """
    }

    /// The configuration: in the foreground, no access log, everything nginx writes inside `directory`, and
    /// kept-alive connections that are never closed for their number of requests (on HTTP/2 too, where
    /// `keepalive_requests` counts a connection's streams).
    private static func configuration(
        directory: String,
        port: UInt16,
        closingPort: UInt16,
        tlsPorts: TLSPorts?,
        http2Ports: HTTP2Ports?,
        workers: Int,
        modules: [String]
    ) -> String {
        let temporaryPaths = (["client_body"] + modules).map { "    \($0)_temp_path \(directory)/temp-\($0);" }
        let user = geteuid() == 0 ? "user nobody nogroup;\n" : ""
        return """
            daemon off;
            master_process on;
            \(user)worker_processes \(workers);
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events {
                worker_connections 1024;
            }
            http {
                access_log off;
            \(temporaryPaths.joined(separator: "\n"))
                types {
                    application/json json;
                    application/octet-stream bin;
                }
                default_type application/octet-stream;
                sendfile on;
                tcp_nopush on;
                tcp_nodelay on;
                keepalive_timeout 120s;
                keepalive_requests 1000000;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory)/www;
                    # The same files, fresh for an hour, or to be revalidated on every use (each has an ETag and a
                    # Last-Modified), for the HTTP cache's rows.
                    location /fresh/ {
                        alias \(directory)/www/;
                        expires 1h;
                    }
                    location /revalidate/ {
                        alias \(directory)/www/;
                        add_header Cache-Control no-cache;
                    }
                    # The same files, gzipped for a client that asks (level 6, as nginx's users commonly set it).
                    location /gz/ {
                        alias \(directory)/www/;
                        gzip on;
                        gzip_types application/json application/octet-stream;
                        gzip_comp_level 6;
                        gzip_min_length 256;
                    }
                }
                server {
                    listen 127.0.0.1:\(closingPort);
                    root \(directory)/www;
                    keepalive_requests 1;
                }
            \(tlsPorts.map { tlsServers(directory: directory, ports: $0) } ?? "")
            \(http2Ports.map { http2Servers(directory: directory, ports: $0) } ?? "")
            }

            """
    }

    /// The modules, of those that keep temporary files, that the nginx binary was built with.
    private static func temporaryPathModules(_ executable: URL) -> [String] {
        let version = run(executable, ["-V"]) ?? ""
        return ["proxy", "fastcgi", "uwsgi", "scgi"].filter { !version.contains("--without-http_\($0)_module") }
    }
}

/// Looks for an executable on the `PATH` and in a few more directories.
///
/// - Parameters:
///   - name: The executable's name.
///   - extra: Directories to look in after the `PATH`.
/// - Returns: Its URL, or `nil` when there is none.
func findExecutable(_ name: String, extra: [String] = []) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":").map(String.init) + extra {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 {
            return URL(fileURLWithPath: candidate)
        }
    }
    return nil
}

/// Runs a program to its end and returns what it wrote, standard output and standard error together.
///
/// - Parameters:
///   - executable: The program.
///   - arguments: Its arguments.
/// - Returns: Its output, or `nil` when it could not be started.
func run(_ executable: URL, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do {
        try process.run()
    } catch {
        return nil
    }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self)
}

/// A loopback port that nothing listens on now, found by binding port 0.
func freePort() throws -> UInt16 {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw ServerError(description: "socket failed: errno \(errno)") }
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(listener, socketAddress, length) == 0 && getsockname(listener, socketAddress, &length) == 0
        }
    }
    guard bound else { throw ServerError(description: "no free port: errno \(errno)") }
    return UInt16(bigEndian: address.sin_port)
}

/// Waits up to five seconds for a connection to the port to succeed, while the process runs.
func waitForListener(port: UInt16, process: Process) -> Bool {
    for _ in 0..<100 {
        guard process.isRunning else { return false }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                connect(client, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        close(client)
        if connected {
            return true
        }
        usleep(50_000)
    }
    return false
}
