import Foundation

/// An nginx that serves the benchmark's API from static files, on a free loopback port, from a temporary directory
/// of its own, with its files written afresh: the same bytes on every run.
///
/// `/blob` is a sparse file, read without touching the disk. Uploads go to ``UploadSink`` instead: nginx's `return`
/// answers before it has read the body, and a client that has its answer stops sending.
final class Nginx {
    /// The directory of the configuration, the files and the logs.
    let directory: URL
    /// The port nginx listens on, on 127.0.0.1.
    let port: UInt16
    /// The server's URL, the generated client's `serverURL`.
    let url: URL

    private let process: Process

    /// Writes the files (a list of `itemCount` items, and a blob of `blobSize` bytes) and the configuration, starts
    /// nginx and waits until it accepts connections.
    ///
    /// - Throws: `BenchmarkError` when nginx is missing, does not start or never accepts a connection.
    init(itemCount: Int, blobSize: Int64) throws {
        let candidates = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        guard let executable = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw BenchmarkError("nginx not found; on Debian: apt-get install -y nginx-light")
        }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-openapi-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.removeItem(at: directory)
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let greeting = Components.Schemas.Greeting(id: 1, message: "Hello from nginx, to a generated client.")
        try JSONEncoder().encode(greeting).write(to: root.appendingPathComponent("greeting.json"))
        try JSONEncoder().encode(Self.items(itemCount)).write(to: root.appendingPathComponent("items.json"))
        let blob = root.appendingPathComponent("blob")
        _ = FileManager.default.createFile(atPath: blob.path, contents: nil)
        let handle = try FileHandle(forWritingTo: blob)
        try handle.truncate(atOffset: UInt64(blobSize))
        try handle.close()
        // Read once, so that the kernel has the sparse file's pages before the first download: the first read of a
        // fresh one is slower for nginx, and would weigh on whichever transport the table measures first.
        let reader = try FileHandle(forReadingFrom: blob)
        while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty {}
        try reader.close()
        port = try freePort()
        guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw BenchmarkError("no URL for \(port)") }
        self.url = url
        let configuration = directory.appendingPathComponent("nginx.conf")
        try Self.configuration(directory: directory.path, port: port).write(
            to: configuration,
            atomically: true,
            encoding: .utf8
        )
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-c", configuration.path, "-p", directory.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if canConnect(port: port) { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        stop()
        throw BenchmarkError("nginx did not start: \(log)")
    }

    /// The size of the list's file, in bytes.
    var listSize: Int {
        let path = directory.appendingPathComponent("www/items.json").path
        return ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    /// Stops nginx and removes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A deterministic list of items, about 150 bytes each in JSON.
    private static func items(_ count: Int) -> [Components.Schemas.Item] {
        (0..<count).map { index in
            Components.Schemas.Item(
                id: index,
                name: "Item number \(index), with a name long enough to be typical",
                price: Double(index % 10_000) / 100,
                tags: ["tag-\(index % 7)", "tag-\(index % 11)", "tag-\(index % 13)"],
                inStock: index % 3 != 0
            )
        }
    }

    /// The configuration: in the foreground, no access log, keep-alive for the length of a run, and everything
    /// nginx writes inside `directory`.
    private static func configuration(directory: String, port: UInt16) -> String {
        // Workers run as an unprivileged user when nginx starts as root; they must read the files in the directory.
        let user = getuid() == 0 ? "user root root;" : ""
        return """
            \(user)
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                keepalive_requests 10000000;
                keepalive_timeout 300s;
                sendfile on;
                types { application/json json; }
                default_type application/octet-stream;
                server {
                    listen 127.0.0.1:\(port);
                    root \(directory)/www;
                    location = /upload {
                        client_max_body_size 0;
                        return 204;
                    }
                }
            }
            """
    }
}

/// A free TCP port on 127.0.0.1, as the kernel picks one.
private func freePort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard bound == 0, named == 0 else { throw BenchmarkError("no free port: errno \(errno)") }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether something accepts a TCP connection on 127.0.0.1 at `port`.
private func canConnect(port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// The IPv4 loopback address at `port`.
func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// Why the benchmark could not run.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
