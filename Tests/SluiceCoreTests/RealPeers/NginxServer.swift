import ClientFixtures
// nginx, a server no one here wrote, run as a child process on a loopback port and a Unix domain socket, serving
// documents generated here so that every byte a transport receives can be checked.
import Foundation
import SluiceCore
import TestSupport

// Raw sockets come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A running nginx, serving generated documents from a temporary directory of its own on a free loopback port (on
/// `127.0.0.1`, and on `::1` too where the machine has an IPv6 loopback) and on a Unix domain socket.
///
/// Everything it writes (configuration, documents, pid, error log, temporary files, the socket) stays in that
/// directory, so it runs without privileges and leaves nothing behind; ``stop()``, or deinitialization, ends it and
/// removes the directory. It runs as one process, without a master or workers, so that it keeps the identity it was
/// started with and can read a directory only that identity can.
///
/// The documents, the same bytes on every run:
///
/// - `/small.json`: ``smallJSON``, a JSON object of about 1 KB.
/// - `/large.bin`: ``largeBinary``, 1.5 MiB of pseudo-random bytes.
/// - `/users.json`: ``usersJSON``, an array of ``userCount`` users (``users``), about 1.5 MB.
/// - `/chunked.json`: ``smallJSON`` again, sent chunked, without a `Content-Length`.
/// - `/empty`: 204, no body.
/// - `/cache/expires/<document>`: the documents with `expires 60s` (`Cache-Control: max-age=60` and `Expires`);
///   `/cache/no-cache/<document>` with `add_header Cache-Control no-cache`; `/cache/validators/<document>` with only
///   the `ETag` and `Last-Modified` nginx gives every file; `/cache/sentinel`: 204. Each request to `/cache/` is
///   written to ``cacheAccessLog``, so that a test counts the requests that reached the origin.
/// - `/redirect`: 302 to `/small.json`, with a relative `Location`.
/// - `/redirect-absolute`: 302 to `/small.json`, with an absolute `Location`.
/// - `/echo-method`: 200, the request's method as the body (`text/plain`).
/// - `/echo-host`: 200, the request's `Host` field as the body (`text/plain`).
/// - `/echo-proxy-authorization`: 200, the request's `Proxy-Authorization` field in brackets (`[]` without one), so
///   that a test sees that a proxy's credentials never reached the origin.
/// - `/connection`: 200, the serial number of the connection and how many requests it has carried, as
///   `"<connection> <requests>"`, so that a test sees whether a connection was kept alive.
/// - `/gzip/<document>`: the same documents with nginx's `gzip on`, for a client that accepts gzip.
/// - any other path: 404.
///
/// `.ci/run` installs nginx; elsewhere the tests that need it are skipped when it is missing, unless
/// ``isRequired`` (`SLUICE_REQUIRE_PEERS=1`), when they fail.
final class NginxServer: Sendable {
    /// Where a server listens over TCP: `http://127.0.0.1:<port>`.
    let baseURL: URL
    /// The loopback port it listens on.
    let port: Int
    /// The loopback port it listens on with TLS, when it was started with a ``TLSSite``.
    let tlsPort: Int?
    /// The loopback port it speaks HTTP/2 on without TLS, by prior knowledge, when its site has ``TLSSite/http2``.
    let h2cPort: Int?
    /// The path of the Unix domain socket it also listens on, inside its directory.
    let unixSocketPath: String
    /// The temporary directory that holds its configuration, documents, logs and socket.
    let directory: URL
    /// The nginx process.
    let process: ChildProcess
    /// Fired when the nginx process has exited.
    private let exited: Signal

    /// Whether the run requires the real peers: with `SLUICE_REQUIRE_PEERS=1`, a test that finds no nginx fails
    /// instead of being skipped.
    static let isRequired = ProcessInfo.processInfo.environment["SLUICE_REQUIRE_PEERS"] == "1"

    /// The nginx executable: the first `nginx` on `PATH`, else `/usr/sbin/nginx`; `nil` when there is none.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    /// Why tests that need nginx are skipped when it is missing.
    static let missingReason =
        "nginx is not on PATH or at /usr/sbin/nginx; SLUICE_REQUIRE_PEERS=1 makes its absence a failure"

    /// Starts a server, or returns `nil` when there is no nginx to start.
    ///
    /// - Returns: The running server, accepting connections on ``baseURL`` and ``unixSocketPath``; `nil` when
    ///   ``executable`` is `nil`.
    /// - Throws: ``NginxServerError`` when nginx did not start, with its error log.
    static func start(tls: TLSSite? = nil) throws -> NginxServer? {
        guard let executable else {
            return nil
        }
        return try NginxServer(executable: executable, tls: tls)
    }

    /// Starts a server as ``start()`` does, on a thread of its own: starting waits for nginx to accept connections,
    /// and a wait on one of the cooperative pool's or Dispatch's few threads would hold up the tests running beside
    /// it.
    ///
    /// - Parameter tls: The TLS site to serve as well, if any.
    /// - Returns: The running server, or `nil` when there is no nginx to start.
    /// - Throws: ``NginxServerError`` when nginx did not start.
    static func startOffThePool(tls: TLSSite? = nil) async throws -> NginxServer? {
        try await offThePool { try start(tls: tls) }
    }

    /// Writes the directory and starts nginx in it, on a new free port each time another process took the port
    /// first.
    ///
    /// - Parameters:
    ///   - executable: The nginx executable.
    ///   - tls: The TLS site to serve as well, if any.
    /// - Throws: ``NginxServerError`` when nginx did not start.
    private init(executable: URL, tls: TLSSite?) throws {
        let directory = try Self.makeDirectory()
        let socketPath = directory.appendingPathComponent("nginx.sock").path
        do {
            try Self.writeDocuments(into: directory)
            let (process, exited, port, tlsPort, h2cPort) = try Self.launchOnFreePort(
                executable,
                in: directory,
                socketPath: socketPath,
                tls: tls
            )
            guard let url = URL(string: "http://127.0.0.1:\(port)") else {
                process.terminate()
                throw NginxServerError(description: "no URL for port \(port)")
            }
            self.process = process
            self.exited = exited
            self.port = port
            self.tlsPort = tlsPort
            self.h2cPort = h2cPort
            self.baseURL = url
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        self.directory = directory
        self.unixSocketPath = socketPath
    }

    deinit {
        // Stopping waits for nginx to exit; it waits on a thread of its own, not on whichever thread of the
        // cooperative pool let go of the server last.
        let (process, exited, directory) = (self.process, self.exited, self.directory)
        Thread.detachNewThread {
            Self.stop(process, exited: exited, directory: directory)
        }
    }

    /// Ends nginx and removes its directory; stopping a stopped server does nothing.
    func stop() {
        Self.stop(process, exited: exited, directory: directory)
    }

    /// Ends an nginx process and removes its directory.
    ///
    /// - Parameters:
    ///   - process: The process.
    ///   - exited: Fired when it has exited.
    ///   - directory: Its directory.
    private static func stop(_ process: ChildProcess, exited: Signal, directory: URL) {
        if process.isRunning {
            process.terminate()
            if !Self.waitForExit(exited) {
                process.forceKill()
                process.waitUntilExit()
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The URL of a path on the server, over TCP.
    ///
    /// - Parameter path: The path, with or without its leading `/`.
    /// - Returns: The URL.
    func url(_ path: String) -> URL {
        baseURL.appendingPathComponent(path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// The URL of a path on the server over IPv6, `http://[::1]:<port>/<path>`, when the machine has an IPv6 loopback
    /// (``hasIPv6Loopback``).
    ///
    /// - Parameter path: The path, with its leading `/`.
    /// - Returns: The URL, or `nil` without an IPv6 loopback.
    func ipv6URL(_ path: String) -> URL? {
        Self.hasIPv6Loopback ? URL(string: "http://[::1]:\(port)\(path)") : nil
    }
}

// MARK: - TLS

extension NginxServer {
    /// A server block with TLS, on a port of its own, serving the same documents.
    struct TLSSite: Sendable {
        /// The certificate chain the server presents, its own certificate first.
        var chain: URL
        /// Its private key.
        var key: URL
        /// The protocol versions it accepts, as nginx's `ssl_protocols` names them.
        var protocols = "TLSv1.2 TLSv1.3"
        /// The TLS 1.2 cipher suites it accepts, as nginx's `ssl_ciphers` names them; nginx's default when `nil`.
        var ciphers: String?
        /// The root a client's certificate must chain to, when the server requires one.
        var clientCertificateAuthority: URL?
        /// The most requests a connection carries before the server closes it; nginx's default when `nil`.
        var keepaliveRequests: Int?
        /// A plain HTTP server that `/proxy/` forwards to, unbuffered, as a TLS front for its faults.
        var upstream: URL?
        /// Whether the site speaks HTTP/2 (nginx's `http2` module): chosen by ALPN over TLS, and by prior knowledge on
        /// a cleartext port of its own (``NginxServer/h2cPort``).
        var http2 = false
    }

    /// The URL of a path on the cleartext HTTP/2 port of a site started with ``TLSSite/http2``.
    ///
    /// - Parameter path: The path, with its leading `/`.
    /// - Returns: The URL, `http://127.0.0.1:<h2cPort><path>`.
    /// - Throws: ``NginxServerError`` when the server has no such port.
    func h2cURL(_ path: String) throws -> URL {
        guard let h2cPort, let url = URL(string: "http://127.0.0.1:\(h2cPort)\(path)") else {
            throw NginxServerError(description: "the server has no cleartext HTTP/2 port")
        }
        return url
    }

    /// The URL of a path on the TLS site.
    ///
    /// - Parameters:
    ///   - path: The path, with its leading `/`.
    ///   - host: The host to name: `localhost`, or an address.
    /// - Returns: The URL, `https://<host>:<tlsPort><path>`.
    /// - Throws: ``NginxServerError`` when the server has no TLS site.
    func httpsURL(_ path: String, host: String = "localhost") throws -> URL {
        guard let tlsPort, let url = URL(string: "https://\(host):\(tlsPort)\(path)") else {
            throw NginxServerError(description: "the server has no TLS site")
        }
        return url
    }

    /// The requests to `/cache/` that reached the server, each as `<method> <path> <status>`, in order.
    ///
    /// nginx writes a request's line once it has sent the response, so a test reads this after a request to
    /// `/cache/sentinel`, which one nginx process handles only after writing the lines of the requests before it; the
    /// sentinel's own line is left out.
    var cacheAccessLog: [String] {
        let log = directory.appendingPathComponent("cache-access.log")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { !$0.contains("/cache/sentinel") }
    }

    /// The TLS site's access log, a line a request: whether its session was resumed (`r` or `.`), and the protocol.
    ///
    /// nginx writes a request's line once it has sent the response, so the client may read the response first. This
    /// sends `/cache/sentinel` over TLS through `performer` before reading: one nginx process handles it only after
    /// writing the lines of the requests before it, and logs it elsewhere.
    ///
    /// - Parameter performer: The performer that sent the requests, or any that reaches the TLS site.
    /// - Returns: The lines, in order.
    /// - Throws: When the sentinel request fails.
    func tlsAccessLog(after performer: some RequestPerformer) async throws -> [String] {
        _ = try await performer.perform(URLRequest(url: try httpsURL("/cache/sentinel")))
        let text = (try? String(contentsOf: directory.appendingPathComponent("tls-access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// `/proxy/` forwarded to an upstream server without buffering, so that its pace and its faults reach the client.
    private static func proxyLocation(_ upstream: URL) -> String {
        """
        location /proxy/ {
            proxy_pass \(upstream.absoluteString.hasSuffix("/") ? upstream.absoluteString : upstream.absoluteString + "/");
            proxy_buffering off;
            proxy_http_version 1.1;
            proxy_read_timeout 60s;
        }
        """
    }

    /// The server block of a TLS site.
    private static func tlsServer(_ site: TLSSite, port: Int, h2cPort: Int?, directory: URL) -> String {
        let clientCertificate =
            site.clientCertificateAuthority.map {
                "ssl_client_certificate \($0.path); ssl_verify_client on; ssl_verify_depth 3;"
            } ?? ""
        return """
                log_format sluice_tls '$ssl_session_reused $ssl_protocol';
                server {
                    listen 127.0.0.1:\(port) ssl\(site.http2 ? " http2" : "");
                    server_name localhost;
                    root \(directory.path)/www;
                    access_log \(directory.path)/tls-access.log sluice_tls;
                    ssl_certificate \(site.chain.path);
                    ssl_certificate_key \(site.key.path);
                    ssl_protocols \(site.protocols);
                    \(site.ciphers.map { "ssl_ciphers \($0);" } ?? "")
                    ssl_session_cache shared:SSL:1m;
                    ssl_session_tickets on;
                    \(clientCertificate)
                    \(site.keepaliveRequests.map { "keepalive_requests \($0);" } ?? "")
                    \(site.upstream.map(proxyLocation) ?? "")
                    \(locations(directory: directory))
                }
                \(h2cPort.map { h2cServer(port: $0, directory: directory) } ?? "")
            """
    }

    /// The server block that speaks HTTP/2 without TLS, by prior knowledge, serving the same documents.
    private static func h2cServer(port: Int, directory: URL) -> String {
        """
                server {
                    listen 127.0.0.1:\(port) http2;
                    server_name localhost;
                    root \(directory.path)/www;
                    \(locations(directory: directory))
                }
        """
    }
}

/// Why nginx did not start.
struct NginxServerError: Error, CustomStringConvertible {
    /// What went wrong, with nginx's error log.
    let description: String

    /// Whether nginx failed because another process holds the port.
    var addressInUse: Bool { description.contains("Address already in use") }
}

// MARK: - Documents

extension NginxServer {
    /// A user in `/users.json`, as the document spells it.
    struct UserRecord: Sendable, Equatable {
        /// The user's number, from 1.
        let id: Int
        /// A full name.
        let name: String
        /// An address at example.com.
        let email: String
        /// An ISO 8601 date and time in UTC, as a plain string.
        let createdAt: String
    }

    /// How many users `/users.json` holds.
    static let userCount = 1_000

    /// The users `/users.json` holds, in order.
    static let users: [UserRecord] = (1...userCount).map { id in
        let first = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken"][id % 8]
        let last = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson"][(id / 8) % 8]
        let day = 1 + id % 28
        let seconds = id * 7_919 % 86_400
        let time = [seconds / 3_600, seconds / 60 % 60, seconds % 60].map(twoDigits).joined(separator: ":")
        return UserRecord(
            id: id,
            name: "\(first) \(last) \(id)",
            email: "\(first.lowercased()).\(last.lowercased()).\(id)@example.com",
            createdAt: "2024-\(twoDigits(1 + id % 12))-\(twoDigits(day))T\(time)Z"
        )
    }

    /// `/users.json`: ``users`` as a JSON array, each with a `bio` of about 1.3 KB that the user model has no field
    /// for, as an API sends more than a client reads.
    static let usersJSON: Data = {
        var generator = SplitMix64(seed: 0x5EED_0001)
        let words = ["stream", "socket", "buffer", "header", "request", "status", "chunk", "frame", "pipeline", "byte"]
        let objects = users.map { user in
            var bio = ""
            while bio.utf8.count < 1_300 {
                bio += words[Int(generator.next() % UInt64(words.count))] + " "
            }
            return """
                {"id":\(user.id),"name":"\(user.name)","email":"\(user.email)",\
                "createdAt":"\(user.createdAt)","bio":"\(bio)"}
                """
        }
        return Data(("[" + objects.joined(separator: ",\n") + "]\n").utf8)
    }()

    /// `/small.json`: a JSON object of about 1 KB.
    static let smallJSON: Data = {
        let items = (1...12).map { index in
            #"{"index":\#(index),"label":"item \#(index)","weight":\#(Double(index) * 1.25),"active":\#(index % 2 == 0)}"#
        }
        let text = #"""
            {"name":"small","version":3,"description":"A small document, the same bytes on every run.",\#
            "tags":["alpha","beta","gamma"],"items":[\#(items.joined(separator: ","))],"nothing":null}

            """#
        return Data(text.utf8)
    }()

    /// `/large.bin`: 1.5 MiB of pseudo-random bytes from a fixed seed.
    static let largeBinary: Data = {
        var generator = SplitMix64(seed: 0x1A26_E000)
        var bytes = [UInt8](repeating: 0, count: 3 << 19)
        for index in stride(from: 0, to: bytes.count, by: 8) {
            let value = generator.next()
            for offset in 0..<8 {
                bytes[index + offset] = UInt8(truncatingIfNeeded: value >> (offset * 8))
            }
        }
        return Data(bytes)
    }()

    /// Writes the documents into `www` under the directory.
    ///
    /// - Parameter directory: The server's directory.
    /// - Throws: When a file could not be written.
    private static func writeDocuments(into directory: URL) throws {
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try smallJSON.write(to: root.appendingPathComponent("small.json"))
        try largeBinary.write(to: root.appendingPathComponent("large.bin"))
        try usersJSON.write(to: root.appendingPathComponent("users.json"))
    }
}

/// A number of at least two digits, zero-padded.
///
/// - Parameter value: A number from 0 to 99.
/// - Returns: Its two digits.
private func twoDigits(_ value: Int) -> String {
    value < 10 ? "0\(value)" : "\(value)"
}

// MARK: - Process

extension NginxServer {
    /// The configuration: one process in the foreground, everything it writes inside the directory, an access log for
    /// `/cache/` only,
    /// connections kept alive for as many requests as a test sends.
    ///
    /// - Parameters:
    ///   - directory: The server's directory.
    ///   - port: The loopback port to listen on.
    ///   - socketPath: The Unix domain socket to listen on.
    ///   - tls: The TLS site, and the port it listens on, if any.
    /// - Returns: The text of `nginx.conf`.
    private static func configuration(
        directory: URL,
        port: Int,
        socketPath: String,
        tls: (site: TLSSite, port: Int, h2cPort: Int?)?
    ) -> String {
        let path = directory.path
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            lock_file \(path)/nginx.lock;
            error_log \(path)/error.log warn;

            events {
                worker_connections 256;
            }

            http {
                access_log off;
                client_body_temp_path \(path)/temp/client_body;
                proxy_temp_path \(path)/temp/proxy;
                fastcgi_temp_path \(path)/temp/fastcgi;
                uwsgi_temp_path \(path)/temp/uwsgi;
                scgi_temp_path \(path)/temp/scgi;
                log_format sluice_cache '$request_method $uri $status';
                keepalive_requests 100000;
                keepalive_timeout 75s;
                client_max_body_size 16m;
                absolute_redirect off;
                types {
                    application/json json;
                    application/octet-stream bin;
                }
                default_type application/octet-stream;

                server {
                    listen 127.0.0.1:\(port);
                    \(hasIPv6Loopback ? "listen [::1]:\(port);" : "")
                    listen unix:\(socketPath);
                    server_name localhost;
                    root \(path)/www;

                    \(locations(directory: directory))
                }
            \(tls.map { tlsServer($0.site, port: $0.port, h2cPort: $0.h2cPort, directory: directory) } ?? "")
            }

            """
    }

    /// The locations every server block serves, as ``NginxServer`` lists them.
    private static func locations(directory: URL) -> String {
        let path = directory.path
        return """
                    location = /empty {
                        return 204;
                    }
                    location = /small-upload {
                        client_max_body_size 1k;
                        return 200 "never";
                    }
                    location /cache/ {
                        access_log \(path)/cache-access.log sluice_cache;
                        location = /cache/sentinel {
                            return 204;
                        }
                        location /cache/expires/ {
                            alias \(path)/www/;
                            expires 60s;
                        }
                        location /cache/no-cache/ {
                            alias \(path)/www/;
                            add_header Cache-Control no-cache;
                        }
                        location /cache/validators/ {
                            alias \(path)/www/;
                        }
                    }
                    location = /redirect {
                        return 302 /small.json;
                    }
                    location = /redirect-absolute {
                        absolute_redirect on;
                        return 302 /small.json;
                    }
                    location = /echo-method {
                        default_type text/plain;
                        return 200 $request_method;
                    }
                    location = /echo-host {
                        default_type text/plain;
                        return 200 $http_host;
                    }
                    location = /echo-proxy-authorization {
                        default_type text/plain;
                        return 200 "[$http_proxy_authorization]";
                    }
                    location = /connection {
                        default_type text/plain;
                        return 200 "$connection $connection_requests";
                    }
                    location /gzip/ {
                        alias \(path)/www/;
                        gzip on;
                        gzip_types application/json application/octet-stream;
                    }
                    location = /chunked.json {
                        alias \(path)/www/small.json;
                        ssi on;
                        ssi_types application/json;
                    }
            """
    }

    /// Creates a new directory under `/tmp`, whose short path leaves room in a socket address for the socket's.
    ///
    /// - Returns: The directory, readable and writable by this process only.
    /// - Throws: ``NginxServerError`` when it could not be created.
    private static func makeDirectory() throws -> URL {
        var template = Array("/tmp/sluice-nginx.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw NginxServerError(description: "mkdtemp failed: errno \(errno)")
        }
        let path = String(cString: created)
        try FileManager.default.createDirectory(atPath: path + "/temp", withIntermediateDirectories: true)
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// A loopback port that was free a moment ago.
    ///
    /// It is the one the system picked for a socket bound to port 0, closed again. Another process can take it
    /// before nginx does; ``launchOnFreePort(_:in:socketPath:)`` then tries another.
    ///
    /// - Returns: The port.
    /// - Throws: ``NginxServerError`` when no socket could be bound.
    static func freePort() throws -> Int {
        let (descriptor, port) = try reservedPort()
        close(descriptor)
        return port
    }

    /// A loopback port held by a socket bound to it and not listening: a connection to it is refused, and no other
    /// socket can bind it until the descriptor is closed.
    ///
    /// - Returns: The socket's descriptor, for the caller to close, and the port.
    /// - Throws: ``NginxServerError`` when no socket could be bound.
    static func reservedPort() throws -> (descriptor: Int32, port: Int) {
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw NginxServerError(description: "socket failed: errno \(errno)")
        }
        var address = loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw NginxServerError(description: "binding a socket to a free port failed: errno \(code)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether this machine has an IPv6 loopback (`::1`) a socket can bind to; the server listens there too when it
    /// has, on the same port.
    static let hasIPv6Loopback: Bool = {
        guard let probe = try? Socket.stream(family: AF_INET6),
            let loopback = SocketAddress.numeric(host: "::1", port: 0)
        else {
            return false
        }
        defer { probe.closeDescriptor() }
        return loopback.withSockaddr { bind(probe.descriptor, $0, $1) == 0 }
    }()

    /// The address of a loopback port.
    ///
    /// - Parameter port: The port.
    /// - Returns: `127.0.0.1:<port>`.
    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        // Only BSD-derived systems have (and want) the sin_len field.
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    /// Whether a connection to a loopback port is accepted.
    ///
    /// - Parameter port: The port.
    /// - Returns: `true` when `connect` succeeded.
    static func acceptsConnections(port: Int) -> Bool {
        (try? RawClient(port: port, timeout: 1)) != nil
    }

    /// Starts nginx on a free port, and on another each time a process took the port first, five times at most.
    ///
    /// - Parameters:
    ///   - executable: The nginx executable.
    ///   - directory: The server's directory.
    ///   - socketPath: The Unix domain socket.
    ///   - tls: The TLS site to serve as well, if any.
    /// - Returns: The running process, the signal fired when it has exited, its port, and its TLS site's port.
    /// - Throws: ``NginxServerError`` when nginx did not start.
    private static func launchOnFreePort(
        _ executable: URL,
        in directory: URL,
        socketPath: String,
        tls: TLSSite?
    ) throws -> (ChildProcess, Signal, Int, Int?, Int?) {
        var attempt = 1
        while true {
            // The first ports stay bound while the next are chosen, so that no two are the same port.
            let (held, port) = try reservedPort()
            var tlsPort: Int?
            var h2cPort: Int?
            var heldTLS: Int32?
            do {
                if tls != nil {
                    let reserved = try reservedPort()
                    heldTLS = reserved.descriptor
                    tlsPort = reserved.port
                }
                h2cPort = tls?.http2 == true ? try freePort() : nil
            } catch {
                close(held)
                heldTLS.map { _ = close($0) }
                throw error
            }
            close(held)
            heldTLS.map { _ = close($0) }
            do {
                let (process, exited) = try launch(
                    executable,
                    in: directory,
                    port: port,
                    socketPath: socketPath,
                    tls: tls.flatMap { site in tlsPort.map { (site, $0, h2cPort) } }
                )
                return (process, exited, port, tlsPort, h2cPort)
            } catch let error as NginxServerError where error.addressInUse && attempt < 5 {
                attempt += 1
            }
        }
    }

    /// Writes the configuration for a port, starts nginx, and waits until it is ready: its pid file written, and a
    /// connection accepted on the port.
    ///
    /// - Parameters:
    ///   - executable: The nginx executable.
    ///   - directory: The server's directory.
    ///   - port: The loopback port.
    ///   - socketPath: The Unix domain socket.
    ///   - tls: The TLS site and its port, if any.
    /// - Returns: The running process, and the signal fired when it has exited.
    /// - Throws: ``NginxServerError`` with the error log when nginx exited or did not accept a connection within
    ///   5 seconds.
    private static func launch(
        _ executable: URL,
        in directory: URL,
        port: Int,
        socketPath: String,
        tls: (site: TLSSite, port: Int, h2cPort: Int?)?
    ) throws -> (ChildProcess, Signal) {
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        let errorLog = directory.appendingPathComponent("error.log")
        let output = directory.appendingPathComponent("output.log")
        let pidFile = directory.appendingPathComponent("nginx.pid")
        // What a failed attempt left: its log would be read as this one's, its socket file would block the bind, its
        // pid file would say this one is ready.
        for leftover in [errorLog, output, pidFile, URL(fileURLWithPath: socketPath)] {
            try? FileManager.default.removeItem(at: leftover)
        }
        try Data(configuration(directory: directory, port: port, socketPath: socketPath, tls: tls).utf8)
            .write(to: configurationFile)
        try Data().write(to: output)

        let outputHandle = try FileHandle(forWritingTo: output)
        defer { try? outputHandle.close() }
        let process = try ChildProcess(
            executable,
            ["-p", directory.path + "/", "-c", configurationFile.path, "-e", errorLog.path],
            standardOutput: .file(outputHandle),
            standardError: .file(outputHandle)
        )
        let exited = process.exited

        // nginx tells its parent nothing when it is ready, so readiness is polled, for 30 seconds at most: its pid file,
        // which it writes after opening its sockets and installing its signal handlers (before them, a SIGTERM from
        // stop() would kill it rather than ask it to exit), then a connection it accepts.
        let ready = process.waitUntilReady(within: .seconds(30)) {
            FileManager.default.fileExists(atPath: pidFile.path) && acceptsConnections(port: port)
                && (tls.map { acceptsConnections(port: $0.port) } ?? true)
                && (tls?.h2cPort.map { acceptsConnections(port: $0) } ?? true)
        }
        guard ready else {
            if process.isRunning {
                process.terminate()
                _ = waitForExit(exited)
            }
            let log = [errorLog, output].compactMap { try? String(contentsOf: $0, encoding: .utf8) }
            throw NginxServerError(description: "nginx did not start on port \(port): \(log.joined(separator: "\n"))")
        }
        return (process, exited)
    }

    /// Waits for a process to exit, for 5 seconds at most.
    ///
    /// - Parameter exited: The signal its termination handler fires; the process was signalled to end.
    /// - Returns: Whether it exited in time.
    private static func waitForExit(_ exited: Signal) -> Bool {
        (try? exited.block(timeout: .seconds(5))) != nil
    }
}
