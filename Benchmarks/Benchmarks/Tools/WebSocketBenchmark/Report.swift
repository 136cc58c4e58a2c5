// The results: one raw line per phase as it ends, then markdown tables, one per server, the clients side by side.
import Foundation

/// What one client did in one phase.
struct PhaseResult: Sendable {
    /// The clients, in the order of the tables' columns.
    static let clients = ["Sluice", "swift-websocket", "Python", "raw socket"]

    /// A phase, the same for every client.
    struct Phase: Hashable, Sendable {
        /// The server's name.
        let server: String
        /// What is measured.
        let mode: Mode
        /// The messages' size.
        let size: Int
        /// Whether permessage-deflate was offered.
        let deflate: Bool

        /// The phase's name, as the filter matches it.
        var name: String { "\(server) \(mode.rawValue) \(sizeName)\(deflate ? " deflate" : "")" }

        /// The size, in B or KiB.
        var sizeName: String { size >= 1_024 ? "\(size >> 10) KiB" : "\(size) B" }
    }

    /// The client.
    let client: String
    /// The phase.
    let phase: Phase
    /// The counts, or why there are none.
    let counted: Result<Counted, any Error>

    /// The messages per second.
    var messagesPerSecond: Double? {
        guard case .success(let counted) = counted, counted.seconds > 0 else { return nil }
        return Double(counted.messages) / counted.seconds
    }

    /// The client's CPU seconds per message.
    var cpuPerMessage: Double? {
        guard case .success(let counted) = counted, counted.messages > 0 else { return nil }
        return counted.cpu / Double(counted.messages)
    }

    /// The columns of ``rawLine``.
    static let rawHeader =
        "client | server | mode | size | deflate | messages | seconds | msg/s | MB/s | CPU s | µs CPU/msg"

    /// The phase's figures on one line, or its error.
    var rawLine: String {
        let head = "\(client) | \(phase.server) | \(phase.mode.rawValue) | \(phase.sizeName) | \(phase.deflate)"
        switch counted {
        case .success(let counted):
            let rate = Double(counted.messages) / counted.seconds
            return
                "\(head) | \(counted.messages) | \(format(counted.seconds, 2)) | \(format(rate, 0)) | "
                + "\(format(rate * Double(phase.size) / 1e6, 1)) | \(format(counted.cpu, 3)) | "
                + "\(format(counted.cpu / Double(max(1, counted.messages)) * 1e6, 2))"
        case .failure(let error):
            return "\(head) | failed: \(error)"
        }
    }
}

extension SlowReadResult {
    /// The test's figures on one line.
    var rawLine: String {
        "\(name) slow reader: \(bytes) B in \(format(seconds, 1)) s, RSS \(mebibytes(residentBefore)) before, "
            + "at most \(mebibytes(residentMaximum)) sampled, VmHWM \(mebibytes(residentPeak))"
    }
}

/// The markdown tables of a run.
///
/// - Parameters:
///   - results: Every phase's results.
///   - slowReads: The memory test's results.
/// - Returns: The tables.
func report(_ results: [PhaseResult], slowReads: [SlowReadResult]) -> String {
    var lines: [String] = []
    let clients = PhaseResult.clients
    var phases: [PhaseResult.Phase] = []
    for result in results where !phases.contains(result.phase) {
        phases.append(result.phase)
    }
    var servers: [String] = []
    for phase in phases where !servers.contains(phase.server) {
        servers.append(phase.server)
    }
    for server in servers {
        lines.append("\n### \(server) server\n")
        lines.append(
            "| Phase | Size | deflate | "
                + clients.map { "\($0) msg/s" }.joined(separator: " | ")
                + " | Sluice ÷ swift-websocket | raw socket ÷ swift-websocket | "
                + clients.map { "\($0) µs CPU/msg" }.joined(separator: " | ")
                + " | Sluice CPU ÷ swift-websocket |"
        )
        lines.append("|" + String(repeating: " --- |", count: 6 + 2 * clients.count))
        for phase in phases where phase.server == server {
            let row = clients.map { client in results.first { $0.client == client && $0.phase == phase } }
            let rates = row.map { $0?.messagesPerSecond }
            let cpus = row.map { $0?.cpuPerMessage }
            var cells = [phase.mode.rawValue, phase.sizeName, phase.deflate ? "yes" : "no"]
            cells += rates.map { $0.map { format($0, 0) } ?? "–" }
            cells.append(ratio(rates[0], rates[1]))
            cells.append(ratio(rates[3], rates[1]))
            cells += cpus.map { $0.map { format($0 * 1e6, 2) } ?? "–" }
            cells.append(ratio(cpus[0], cpus[1]))
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
    }
    if !slowReads.isEmpty {
        lines.append("\n### Slow reader\n")
        lines.append("| Client | Read | Time | RSS before | Largest RSS sampled | Peak RSS (VmHWM) |")
        lines.append("| --- | --- | --- | --- | --- | --- |")
        for read in slowReads {
            let cells = [
                read.name, mebibytes(read.bytes), "\(format(read.seconds, 1)) s", mebibytes(read.residentBefore),
                mebibytes(read.residentMaximum), mebibytes(read.residentPeak),
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
    }
    return lines.joined(separator: "\n")
}

/// A ratio to two decimals, or a dash when either side is missing.
private func ratio(_ value: Double?, _ base: Double?) -> String {
    guard let value, let base, base > 0 else { return "–" }
    return "\(format(value / base, 2))×"
}

/// A number with a fixed count of decimals.
func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Bytes in MiB, to one decimal.
private func mebibytes(_ bytes: Int) -> String {
    "\(format(Double(bytes) / 1_048_576, 1)) MiB"
}
