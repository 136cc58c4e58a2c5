// The memory test: the server streams as fast as it can, the client reads at a bounded rate, pausing after every
// message, and the process's resident memory is watched. A client that buffers what it has not read grows with the
// stream; one that stops reading the socket stays near its read-ahead.
import Foundation

/// What the slow reader saw.
struct SlowReadResult: Sendable {
    /// The client.
    let name: String
    /// The bytes read.
    let bytes: Int
    /// The time the reading took, in seconds.
    let seconds: Double
    /// The resident memory before the connection opened, in bytes.
    let residentBefore: Int
    /// The largest resident memory sampled while reading, in bytes.
    let residentMaximum: Int
    /// The kernel's peak resident memory (VmHWM), reset before the connection opened, in bytes.
    let residentPeak: Int
}

/// Reads a stream of messages slowly until enough bytes came, sampling the resident memory.
///
/// - Parameters:
///   - connection: A WebSocket on the server's `/stream/SIZE/COUNT/0` path, which sends at least `total` bytes.
///   - total: How many bytes to read.
///   - pause: The pause after each message.
/// - Returns: The bytes read, the time taken and the largest resident memory sampled.
/// - Throws: What the client throws, or ``UnexpectedMessage``.
func readSlowly(
    _ connection: inout some PhaseConnection,
    total: Int,
    pause: Duration
) async throws -> (bytes: Int, seconds: Double, residentMaximum: Int) {
    let start = ContinuousClock.now
    var bytes = 0
    var messages = 0
    var residentMaximum = processMemory("VmRSS") ?? 0
    while bytes < total {
        let message = try await connection.receive()
        guard case .binary(let count) = message else {
            throw UnexpectedMessage(description: "expected a streamed message, got \(message)")
        }
        bytes += count
        messages += 1
        if messages % 64 == 0 {
            residentMaximum = max(residentMaximum, processMemory("VmRSS") ?? 0)
        }
        try await Task.sleep(for: pause)
    }
    let elapsed = seconds(ContinuousClock.now - start)
    try await drain(&connection)
    return (bytes, elapsed, residentMaximum)
}

/// A figure of `/proc/self/status` in bytes, such as `VmRSS` or `VmHWM`; `nil` where there is none (not Linux).
///
/// - Parameter field: The field's name.
/// - Returns: The bytes.
func processMemory(_ field: String) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("\(field):") {
        let kilobytes = line.dropFirst(field.count + 1).split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        return kilobytes.map { $0 * 1_024 }
    }
    return nil
}

/// Resets the kernel's peak resident memory of this process (VmHWM) to its current one, where Linux allows it.
func resetPeakMemory() {
    try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
}
