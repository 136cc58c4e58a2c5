import SluiceCore

// POLLIN comes from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Why ``BufferedSocketReader`` could not deliver what was asked for.
enum ReadFailure: Error, Equatable {
    /// The peer closed its sending side before the data was complete.
    case endOfStream
    /// The server is stopping.
    case stopped
    /// A line was longer than the caller allowed.
    case lineTooLong
    /// `recv` or `poll` failed with this `errno`, such as `ECONNRESET`.
    case failed(Int32)
}

/// Reads lines and byte runs from a non-blocking socket through a buffer, waiting with ``Poller`` when it runs dry.
///
/// Everything it reads and has not handed out yet stays buffered, so pipelined requests are served in order.
struct BufferedSocketReader {
    /// How many bytes one `recv` asks for at most.
    private static let receiveChunk = 64 * 1024

    /// The connection to read from.
    private let socket: Socket

    /// Interrupts every wait when the server stops.
    private let stop: StopSignal

    /// Bytes received; those before `start` have been handed out.
    private var buffer: [UInt8] = []

    /// The index of the first byte not yet handed out.
    private var start = 0

    /// Where `recv` writes, allocated once so that each read costs only the bytes that arrive.
    private var chunk = [UInt8](repeating: 0, count: Self.receiveChunk)

    /// How many bytes after `start` are already known to contain no line feed, so that searches do not rescan them.
    private var scanned = 0

    /// Creates a reader for a connection.
    ///
    /// - Parameters:
    ///   - socket: The non-blocking connection to read from.
    ///   - stop: The server's stop signal.
    init(socket: Socket, stop: StopSignal) {
        self.socket = socket
        self.stop = stop
    }

    /// How many received bytes are buffered and not handed out yet.
    var bufferedCount: Int {
        buffer.count - start
    }

    /// Reads one line, ended by LF or CRLF, and returns it without the line ending.
    ///
    /// - Parameter maxLength: The most bytes the line may take, line ending included.
    /// - Returns: The line's bytes and how many bytes it took, line ending included.
    /// - Throws: ``ReadFailure/lineTooLong`` when no line ending comes within `maxLength` bytes, or why reading
    ///   stopped.
    mutating func readLine(maxLength: Int) throws(ReadFailure) -> (line: [UInt8], consumed: Int) {
        while true {
            let searchFrom = start + scanned
            if let lineFeed = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                let consumed = lineFeed - start + 1
                guard consumed <= maxLength else {
                    throw .lineTooLong
                }
                var end = lineFeed
                if end > start && buffer[end - 1] == UInt8(ascii: "\r") {
                    end -= 1
                }
                let line = Array(buffer[start..<end])
                start = lineFeed + 1
                scanned = 0
                return (line, consumed)
            }
            scanned = bufferedCount
            guard bufferedCount < maxLength else {
                throw .lineTooLong
            }
            try fill()
        }
    }

    /// Reads exactly `count` bytes and appends them to `destination`.
    ///
    /// - Parameters:
    ///   - count: How many bytes to read.
    ///   - destination: Where to append them.
    /// - Throws: Why reading stopped before `count` bytes arrived.
    mutating func read(exactly count: Int, appendingTo destination: inout [UInt8]) throws(ReadFailure) {
        var remaining = count
        while remaining > 0 {
            if bufferedCount == 0 {
                try fill()
            }
            let taken = min(remaining, bufferedCount)
            destination.append(contentsOf: buffer[start..<(start + taken)])
            start += taken
            scanned = 0
            remaining -= taken
        }
    }

    /// Hands out every byte buffered, or waits for more when there are none.
    ///
    /// - Returns: At least one byte.
    /// - Throws: Why reading stopped before a byte arrived.
    mutating func readAvailable() throws(ReadFailure) -> ArraySlice<UInt8> {
        if bufferedCount == 0 {
            try fill()
        }
        let bytes = buffer[start...]
        start = buffer.count
        scanned = 0
        return bytes
    }

    /// Reads and throws away whatever the peer still sends, until it closes, for a graceful close.
    ///
    /// Closing a socket with unread input makes the kernel send RST, and a client that receives RST may throw away
    /// the response it has not read yet. Draining first lets the client see the whole response, then end-of-stream.
    ///
    /// - Parameters:
    ///   - maxBytes: The most bytes to throw away before giving up.
    ///   - timeout: The longest time to wait for the peer to close.
    mutating func drain(maxBytes: Int, timeout: Duration) {
        buffer = []
        start = 0
        scanned = 0
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var discarded = 0
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while discarded < maxBytes {
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                return
            }
            let outcome = Poller.wait(
                for: socket.descriptor,
                events: Int16(POLLIN),
                orStop: stop.readDescriptor,
                timeout: remaining
            )
            guard outcome == .ready else {
                return
            }
            switch scratch.withUnsafeMutableBytes({ socket.receive(into: $0) }) {
            case .transferred(let count):
                discarded += count
            case .wouldBlock:
                continue
            case .endOfStream, .failed:
                return
            }
        }
    }

    /// Receives at least one more byte into the buffer, waiting as long as it takes unless the server stops.
    private mutating func fill() throws(ReadFailure) {
        if start > 0 && (start == buffer.count || start >= Self.receiveChunk) {
            buffer.removeFirst(start)
            start = 0
        }
        while true {
            switch chunk.withUnsafeMutableBytes({ socket.receive(into: $0) }) {
            case .transferred(let count):
                buffer.append(contentsOf: chunk[0..<count])
                return
            case .wouldBlock:
                break
            case .endOfStream:
                throw .endOfStream
            case .failed(let code):
                throw .failed(code)
            }
            let outcome = Poller.wait(
                for: socket.descriptor,
                events: Int16(POLLIN),
                orStop: stop.readDescriptor,
                timeout: nil
            )
            switch outcome {
            case .ready, .timedOut:
                continue
            case .stopped:
                throw .stopped
            case .failed(let code):
                throw .failed(code)
            }
        }
    }
}
