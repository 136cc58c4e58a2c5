// A squid forward proxy between the clients and nginx, for the rows through a proxy: started on a free loopback port
// from a configuration in a temporary directory of its own, caching nothing, stopped at the end.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// squid, forwarding and tunnelling for loopback clients, with no cache and no access log.
final class SquidProxy: @unchecked Sendable {
    /// The port it listens on.
    let port: UInt16
    private let process: Process
    private let directory: URL

    /// Starts squid and waits until it accepts connections.
    ///
    /// - Throws: ``ServerError`` when squid is missing or does not start.
    init() throws {
        guard let squid = findExecutable("squid", extra: ["/usr/sbin"]) else {
            throw ServerError(description: "squid not found; on Debian: apt-get install -y squid")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-squid-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try freePort()
        let path = directory.path
        let configuration = """
            http_port 127.0.0.1:\(port)
            pid_filename \(path)/squid.pid
            access_log none
            cache_log \(path)/cache.log
            cache_store_log none
            netdb_filename none
            cache deny all
            coredump_dir \(path)
            shutdown_lifetime 0 seconds
            http_access allow localhost
            http_access deny all

            """
        try Data(configuration.utf8).write(to: directory.appendingPathComponent("squid.conf"))
        // squid started as root runs as its own user, which must write its directory.
        if geteuid() == 0, let user = getpwnam("proxy") {
            for file in [path, "\(path)/squid.conf"] {
                chown(file, user.pointee.pw_uid, user.pointee.pw_gid)
            }
        }
        process = Process()
        process.executableURL = squid
        process.arguments = ["-N", "-f", "\(path)/squid.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // A child starts with its parent thread's signal mask, and the threads tasks run on block most signals: squid
        // would not see the SIGTERM that stops it. It is started with none blocked, as from a shell.
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try process.run()
        guard waitForListener(port: port, process: process) else {
            stop()
            let log = (try? String(contentsOf: directory.appendingPathComponent("cache.log"), encoding: .utf8)) ?? ""
            throw ServerError(description: "squid did not start: \(log)")
        }
    }

    /// Stops squid and removes its directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
