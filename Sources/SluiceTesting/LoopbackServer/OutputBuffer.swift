import SluiceCore

/// Gathers small writes into one `send` and passes large bodies on in bounded steps, applying the drip fault.
///
/// Bytes wait in the buffer until it holds ``flushThreshold`` bytes or the caller flushes; every flush blocks (on the
/// socket and the stop signal together) until the kernel has taken everything, so a slow reader slows the writer down
/// and the buffer never holds much more than the threshold.
struct OutputBuffer {
    /// How many buffered bytes trigger a flush.
    private static let flushThreshold = 256 * 1024

    /// The connection to write to.
    private let socket: Socket

    /// Interrupts writes and drip pauses when the server stops.
    private let stop: StopSignal

    /// The drip fault's piece size and pause, or `nil` to send each flush at once.
    private let drip: (bytes: Int, interval: Duration)?

    /// Bytes not sent yet.
    private var pending: [UInt8] = []

    /// Whether anything has been sent, so that a drip pauses before every piece but the first.
    private var hasSent = false

    /// Creates a buffer for one response.
    ///
    /// - Parameters:
    ///   - socket: The connection to write to.
    ///   - stop: The server's stop signal.
    ///   - drip: The drip fault's piece size and pause, or `nil`.
    init(socket: Socket, stop: StopSignal, drip: (bytes: Int, interval: Duration)?) {
        self.socket = socket
        self.stop = stop
        self.drip = drip
    }

    /// Adds bytes, sending the buffer when it is full.
    ///
    /// - Parameter bytes: The bytes to send.
    /// - Returns: `false` when a send failed or the server is stopping.
    mutating func write(_ bytes: ArraySlice<UInt8>) -> Bool {
        pending.append(contentsOf: bytes)
        return pending.count < Self.flushThreshold || flush()
    }

    /// Sends everything buffered, waiting for the socket to take it.
    ///
    /// - Returns: `false` when a send failed or the server is stopping.
    mutating func flush() -> Bool {
        defer { pending.removeAll(keepingCapacity: pending.count <= Self.flushThreshold * 2) }
        guard let drip else {
            return pending.isEmpty || socket.sendAll(pending[...], stop: stop)
        }
        for offset in stride(from: 0, to: pending.count, by: drip.bytes) {
            if hasSent && stop.waitForStop(upTo: drip.interval) {
                return false
            }
            hasSent = true
            guard socket.sendAll(pending[offset..<min(offset + drip.bytes, pending.count)], stop: stop) else {
                return false
            }
        }
        return true
    }
}
