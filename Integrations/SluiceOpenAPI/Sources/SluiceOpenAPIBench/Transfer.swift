import Foundation
import OpenAPIRuntime

/// What a child process reported of one large transfer.
struct TransferReport {
    /// The process's peak resident memory, in bytes.
    var peakBytes: Int
    /// How long the transfer took, in seconds.
    var seconds: Double
}

/// Runs one large transfer in a child process of this executable, so that its peak resident memory is its own, and
/// returns what the child reported.
///
/// - Throws: `BenchmarkError` when the child fails or reports nothing readable.
func runTransferChild(
    _ transport: BenchmarkTransport,
    _ direction: String,
    _ serverURL: URL,
    _ bytes: Int64
) throws -> TransferReport {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["transfer", transport.argument, direction, serverURL.absoluteString, String(bytes)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
    guard process.terminationStatus == 0, fields.count == 2, let peak = Int(fields[0]),
        let seconds = Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        throw BenchmarkError("the \(direction) on \(transport.rawValue) failed (status \(process.terminationStatus))")
    }
    return TransferReport(peakBytes: peak, seconds: seconds)
}

/// Runs the child's side of a large transfer, and prints its peak resident memory in bytes and the seconds taken.
///
/// The arguments are `TRANSPORT upload|download URL BYTES`. The bytes stream through the generated client, and
/// their count is checked.
///
/// - Throws: `BenchmarkError` for arguments it does not understand or a transfer of the wrong size; what the client
///   throws.
func transferChild(_ arguments: [String]) async throws {
    guard arguments.count == 4,
        let transport = BenchmarkTransport.allCases.first(where: { $0.argument == arguments[0] }),
        let serverURL = URL(string: arguments[2]), let bytes = Int64(arguments[3])
    else {
        throw BenchmarkError("usage: transfer sluice|ahc upload|download URL BYTES")
    }
    let clock = ContinuousClock()
    let start = clock.now
    try await transport.withClient(serverURL) { client in
        switch arguments[1] {
        case "upload":
            let body = HTTPBody(Zeros(count: bytes), length: .known(bytes), iterationBehavior: .single)
            _ = try await client.upload(body: .binary(body)).noContent
        case "download":
            var received: Int64 = 0
            for try await chunk in try await client.download().ok.body.binary {
                received += Int64(chunk.count)
            }
            guard received == bytes else { throw BenchmarkError("downloaded \(received) of \(bytes) bytes") }
        default:
            throw BenchmarkError("no transfer \(arguments[1])")
        }
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(peakResidentBytes()) \(seconds)")
}

/// `count` zero bytes, in chunks of 64 KiB made as they are asked for: a body that is never all in memory.
private struct Zeros: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let count: Int64

    func makeAsyncIterator() -> Iterator {
        Iterator(remaining: count)
    }

    struct Iterator: AsyncIteratorProtocol {
        var remaining: Int64

        mutating func next() async -> ArraySlice<UInt8>? {
            guard remaining > 0 else { return nil }
            let size = Int(Swift.min(remaining, 64 << 10))
            remaining -= Int64(size)
            return ArraySlice(repeating: 0, count: size)
        }
    }
}
