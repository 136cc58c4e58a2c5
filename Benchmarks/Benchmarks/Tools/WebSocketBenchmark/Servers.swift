// The servers' processes, their ports, and the watchdog that ends a run whose phase hangs.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The servers started so far, stopped together at the end or when the watchdog gives up.
///
/// `@unchecked Sendable`: the list is only read and written under the lock.
final class RunningServers: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [Process] = []

    /// Starts a server on a free port and waits until it accepts connections.
    ///
    /// - Parameters:
    ///   - name: The server's name, for errors.
    ///   - launch: Starts the process on the port.
    /// - Returns: The server's `ws://` URL, ending in `/`.
    /// - Throws: ``UnexpectedMessage`` when it does not listen within five seconds.
    func start(_ name: String, launch: (UInt16) throws -> Process) throws -> URL {
        let port = try freePort()
        let process = try launch(port)
        lock.withLock { processes.append(process) }
        guard waitForListener(port: port, process: process), let url = URL(string: "ws://127.0.0.1:\(port)/") else {
            throw UnexpectedMessage(description: "the \(name) server is not listening on \(port)")
        }
        print("\(name) server on 127.0.0.1:\(port), process \(process.processIdentifier)")
        return url
    }

    /// Stops every server: ends its standard input, which it watches, and sends it SIGTERM, which its spawn may have
    /// left blocked.
    func stopAll() {
        for process in lock.withLock({ processes }) where process.isRunning {
            try? (process.standardInput as? Pipe)?.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// Starts this executable as the SwiftNIO server.
///
/// - Parameter port: The port.
/// - Returns: The process.
/// - Throws: What starting it throws.
func startOwnServer(port: UInt16) throws -> Process {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["serve", String(port)]
    process.standardInput = Pipe()
    try process.run()
    return process
}

/// Finds an executable by name or path on `PATH`.
///
/// - Parameter name: A name, or a path with a `/`.
/// - Returns: Its URL, or `nil`.
func findExecutable(_ name: String) -> URL? {
    if name.contains("/") {
        return FileManager.default.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
    }
    return nil
}

/// A loopback port that nothing listens on now, found by binding port 0.
func freePort() throws -> UInt16 {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw UnexpectedMessage(description: "socket failed: errno \(errno)") }
    defer { close(listener) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(listener, socketAddress, length) == 0 && getsockname(listener, socketAddress, &length) == 0
        }
    }
    guard bound else { throw UnexpectedMessage(description: "no free port: errno \(errno)") }
    return UInt16(bigEndian: address.sin_port)
}

/// Waits up to five seconds for a connection to the port to succeed, while the process runs.
func waitForListener(port: UInt16, process: Process) -> Bool {
    for _ in 0..<100 {
        guard process.isRunning else { return false }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: port)
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

/// The address of a loopback port.
private func loopback(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return address
}

/// The system's load average over the last minute, or `nan` when it cannot be read.
func loadAverage() -> Double {
    var loads = [0.0, 0.0, 0.0]
    return getloadavg(&loads, 3) > 0 ? loads[0] : .nan
}

/// Ends the run when a phase takes far longer than it should, so that a client that hangs is reported and the
/// servers are still stopped.
///
/// `@unchecked Sendable`: the phase and its deadline are only read and written under the lock.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var phase: (name: String, deadline: ContinuousClock.Instant)?

    /// Starts the watchdog's thread.
    ///
    /// - Parameter onExpiry: Called with the phase's name when one overruns; it is expected to end the process.
    init(onExpiry: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            while true {
                usleep(200_000)
                if let (name, deadline) = lock.withLock({ phase }), ContinuousClock.now > deadline {
                    onExpiry(name)
                }
            }
        }
        thread.start()
    }

    /// Watches a phase from now on.
    func begin(_ name: String, limit: Duration) {
        lock.withLock { phase = (name, ContinuousClock.now + limit) }
    }

    /// Stops watching.
    func end() {
        lock.withLock { phase = nil }
    }
}
