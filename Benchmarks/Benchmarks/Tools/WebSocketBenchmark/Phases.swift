// What one phase does on an open WebSocket, the same for every Swift client: echo round trips, an upload counted by
// the server, or a download streamed by it, each after a warm-up on the same connection, timed on a `ContinuousClock`
// with the process's CPU time over the measured window.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a phase measures.
enum Mode: String, CaseIterable, Sendable {
    /// Send one message, wait for its echo, again.
    case echo
    /// Send messages as fast as the client takes them; the server counts them and answers the count at the end.
    case upload
    /// The server streams messages as fast as the client reads them, for a time a little longer than the phase.
    case download

    /// The server's path for the mode.
    ///
    /// - Parameters:
    ///   - size: The size of the messages.
    ///   - seconds: How long the server streams, for a download: longer than the client reads.
    /// - Returns: The path.
    func path(size: Int, seconds: Double) -> String {
        switch self {
        case .echo: "/echo"
        case .upload: "/sink"
        case .download: "/stream/\(size)/0/\(seconds)"
        }
    }
}

/// A message as a phase sees it.
enum Received: Sendable {
    /// A text message: the server's answers (a count, `stopped`).
    case text(String)
    /// A binary message, of this many bytes.
    case binary(Int)
    /// The connection closed.
    case end
}

/// One open WebSocket as a phase drives it: each client's own types behind three calls.
protocol PhaseConnection {
    /// Sends the phase's payload, prepared once in the client's own type, as a binary message.
    mutating func sendPayload() async throws
    /// Sends a text message.
    mutating func sendText(_ text: String) async throws
    /// Reads the next message.
    mutating func receive() async throws -> Received
}

/// What the server sent where a phase expected something else.
struct UnexpectedMessage: Error, CustomStringConvertible {
    /// What was expected and what came.
    let description: String
}

/// The phase's payload: JSON-like text, the same bytes as the Python scripts make, cut to the size.
///
/// - Parameter size: The size in bytes.
/// - Returns: The bytes.
func payload(size: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = 0
    while bytes.count < size {
        bytes += Array(#"{"id":\#(index),"name":"item \#(index)","ok":true},"#.utf8)
        index += 1
    }
    return Array(bytes.prefix(size))
}

/// The counts of one measured window.
struct Counted: Sendable {
    /// The messages: round trips, messages the server counted, or messages read.
    let messages: Int
    /// The measured window, in seconds.
    let seconds: Double
    /// The CPU seconds over the window: this process's, or what the Python client reported of its own.
    let cpu: Double
}

/// The CPU time this process has used, user and system together, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs a phase: the warm-up, then the measured window.
///
/// - Parameters:
///   - mode: What to measure.
///   - size: The payload's size, to check echoes against.
///   - connection: The open WebSocket, on the mode's path.
///   - warmUp: The warm-up.
///   - measured: The measured window.
/// - Returns: The counts of the measured window.
/// - Throws: What the client throws, or ``UnexpectedMessage``.
func runPhase(
    _ mode: Mode,
    size: Int,
    on connection: inout some PhaseConnection,
    warmUp: Duration,
    measured: Duration
) async throws -> Counted {
    switch mode {
    case .echo:
        _ = try await echo(on: &connection, size: size, for: warmUp)
        return try await timed { try await echo(on: &connection, size: size, for: measured) }
    case .upload:
        _ = try await upload(on: &connection, for: warmUp)
        return try await timed { try await upload(on: &connection, for: measured) }
    case .download:
        _ = try await download(on: &connection, for: warmUp)
        let counted = try await timed { try await download(on: &connection, for: measured) }
        try await drain(&connection)
        return counted
    }
}

/// Times a window on the clock and in CPU time.
private func timed(_ body: () async throws -> Int) async throws -> Counted {
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    let messages = try await body()
    let elapsed = ContinuousClock.now - start
    let cpu = cpuSeconds() - cpuStart
    return Counted(messages: messages, seconds: seconds(elapsed), cpu: cpu)
}

/// Round trips until the time is up.
private func echo(on connection: inout some PhaseConnection, size: Int, for duration: Duration) async throws -> Int {
    let deadline = ContinuousClock.now + duration
    var count = 0
    while ContinuousClock.now < deadline {
        try await connection.sendPayload()
        let answer = try await connection.receive()
        guard case .binary(size) = answer else {
            throw UnexpectedMessage(description: "expected an echo of \(size) bytes, got \(answer)")
        }
        count += 1
    }
    return count
}

/// Messages sent until the time is up, then the server's count of them, which must be all of them.
private func upload(on connection: inout some PhaseConnection, for duration: Duration) async throws -> Int {
    let deadline = ContinuousClock.now + duration
    var sent = 0
    while ContinuousClock.now < deadline {
        try await connection.sendPayload()
        sent += 1
    }
    try await connection.sendText("count")
    let answer = try await connection.receive()
    guard case .text(let text) = answer, let count = Int(text), count == sent else {
        throw UnexpectedMessage(description: "expected the server to count \(sent) messages, got \(answer)")
    }
    return count
}

/// Messages read until the time is up.
private func download(on connection: inout some PhaseConnection, for duration: Duration) async throws -> Int {
    let deadline = ContinuousClock.now + duration
    var count = 0
    while ContinuousClock.now < deadline {
        let message = try await connection.receive()
        guard case .binary = message else {
            throw UnexpectedMessage(description: "expected a streamed message, got \(message)")
        }
        count += 1
    }
    return count
}

/// Reads the rest of the server's stream, until its `stopped`.
///
/// The client never writes while the server streams: a server busy writing may not read before it is done.
func drain(_ connection: inout some PhaseConnection) async throws {
    while true {
        switch try await connection.receive() {
        case .text("stopped"): return
        case .end: throw UnexpectedMessage(description: "the connection closed before the stream stopped")
        default: continue
        }
    }
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}
