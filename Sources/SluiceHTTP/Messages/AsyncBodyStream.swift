import Dispatch

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body that an `AsyncSequence` of byte chunks produces, handed to a transport as the request's
/// `httpBodyStream`, so that it travels through every performer with the request.
///
/// The sequence runs in a task of its own, started when the transport opens the stream, and at most two chunks wait
/// between it and the socket: the producer runs at the speed the socket drains. Sluice's own transport takes the
/// chunks without blocking its event loop (``Channel/take(whenReady:)``) and writes them as they come. A transport
/// that cannot wait without blocking a thread others need (URLSession on Linux) collects the body whole first
/// (``Channel/collect(upTo:)``); any other reader of the `InputStream` blocks in `read` until the next chunk, for at
/// most ``Channel/waitLimit``.
///
/// An `InputStream` is opened once, so each attempt at a request (a retry, a replay after 401, a redirect that keeps
/// the body) sends a stream of its own, made with ``forAttempt()`` from the same ``Source``: a source that makes a
/// fresh sequence each time sends it again; one made from a single sequence sends it once, and an attempt after
/// that fails with an error that says so, rather than a truncated body.
package final class AsyncBodyStream: InputStream {
    /// What makes the body's sequence: once, or afresh for each attempt.
    package final class Source: Sendable {
        /// Whether each attempt gets a sequence of its own.
        package let isReplayable: Bool
        /// Runs a new sequence into a channel, to its end.
        private let run: @Sendable (Channel) async -> Void
        /// Whether a single sequence has been taken.
        private let claimed = Locked(false)

        /// A source of one sequence, sent once.
        package init<Bytes: AsyncSequence & Sendable>(once bytes: Bytes)
        where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
            isReplayable = false
            run = { channel in await channel.produce(from: bytes) }
        }

        /// A source that makes a fresh sequence for each attempt.
        package init<Bytes: AsyncSequence & SendableMetatype>(making makeBytes: @escaping @Sendable () -> Bytes)
        where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
            isReplayable = true
            run = { channel in await channel.produce(from: makeBytes()) }
        }

        /// Starts the producer of an attempt, or says why it cannot.
        fileprivate func start(into channel: Channel) -> SluiceError? {
            if !isReplayable {
                let first = claimed.withLock { claimed in
                    defer { claimed = true }
                    return !claimed
                }
                guard first else {
                    return SluiceError(
                        .transport,
                        message:
                            "the request body is an async sequence that can be sent once, and was sent already; to send it again (a retry, a replay after 401, a redirect), give the body as a function that makes a fresh sequence for each attempt"
                    )
                }
            }
            let run = self.run
            channel.started(Task { await run(channel) })
            return nil
        }
    }

    /// The chunks between the producer's task and the transport, the one part of the stream that threads share.
    package final class Channel: Sendable {
        /// What a non-blocking take found.
        package enum Take: Equatable {
            /// The next bytes of the body.
            case bytes([UInt8])
            /// Nothing yet: the callback given to the take is called once there is.
            case pending
            /// The body has ended.
            case end
        }

        private struct State {
            var chunks: [[UInt8]] = []
            /// How far into the first chunk a blocking reader has read.
            var offset = 0
            var ended = false
            var failure: SluiceError?
            var task: Task<Void, Never>?
            /// The producer, waiting for room.
            var room: CheckedContinuation<Void, Never>?
            /// The transport's callback, waiting for a chunk or the end.
            var ready: (@Sendable () -> Void)?
            /// Whether a blocking reader waits on the semaphore.
            var readerWaits = false
            var waitLimit: Duration?
        }

        /// The most chunks that wait for the transport before the producer waits for room.
        package static let chunksAhead = 2

        private let state = Locked(State())
        private let signal = DispatchSemaphore(value: 0)

        /// The longest a blocking read waits for the producer before the body fails as timed out; `nil` for no
        /// limit.
        package var waitLimit: Duration? {
            get { state.withLock { $0.waitLimit } }
            set { state.withLock { $0.waitLimit = newValue } }
        }

        /// The chunks waiting for the transport, at most ``chunksAhead``.
        package var waitingChunks: Int { state.withLock { $0.chunks.count } }

        /// Why the body failed: its sequence threw, it was closed before its end, or a read waited too long.
        package var failure: SluiceError? { state.withLock { $0.failure } }

        fileprivate func started(_ task: Task<Void, Never>) {
            let closed = state.withLock { state in
                state.task = task
                return state.failure != nil
            }
            if closed {
                task.cancel()
            }
        }

        /// Runs a sequence into the channel: each chunk in turn, waiting while the transport has two to take.
        fileprivate func produce<Bytes: AsyncSequence>(from bytes: Bytes) async
        where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
            do {
                for try await chunk in bytes {
                    guard !chunk.isEmpty else { continue }
                    guard await push(Array(chunk)) else { return }
                }
                stop(failure: nil)
            } catch {
                let described = (error as? SluiceError).map { "\($0.message)" } ?? "\(error)"
                stop(
                    failure: SluiceError(
                        .transport,
                        message: "the request body's async sequence failed: \(described)",
                        underlyingError: error
                    )
                )
            }
        }

        /// Adds a chunk and wakes the transport; waits for room when two chunks wait.
        ///
        /// - Returns: `false` once the body is closed, for the producer to stop.
        private func push(_ chunk: [UInt8]) async -> Bool {
            let (accepted, wake) = state.withLock { state -> (Bool, Wake) in
                guard state.failure == nil, !state.ended else { return (false, Wake()) }
                state.chunks.append(chunk)
                return (true, Wake(taking: &state))
            }
            wake.run(signal)
            guard accepted else { return false }
            await withCheckedContinuation { continuation in
                let waits = state.withLock { state in
                    guard state.chunks.count >= Channel.chunksAhead, state.failure == nil else { return false }
                    state.room = continuation
                    return true
                }
                if !waits {
                    continuation.resume()
                }
            }
            return state.withLock { $0.failure == nil }
        }

        /// Ends the body: at its end (`failure` is `nil`), or failed, which also stops the producer.
        package func stop(failure: SluiceError?) {
            let (wake, room, task) = state.withLock {
                state -> (Wake, CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
                guard !state.ended, state.failure == nil else { return (Wake(), nil, nil) }
                if let failure {
                    state.failure = failure
                    state.chunks.removeAll()
                } else {
                    state.ended = true
                }
                defer { state.room = nil }
                return (Wake(taking: &state), state.room, failure == nil ? nil : state.task)
            }
            wake.run(signal)
            room?.resume()
            task?.cancel()
        }

        /// Closes the body before its end: the producer stops, and a reader gets the error.
        package func close() {
            stop(failure: SluiceError(.cancelled, message: "the request body was closed before its end"))
        }

        /// Takes the next chunk without waiting: for a transport on an event loop.
        ///
        /// - Parameter whenReady: Called, on the producer's thread, once a take would find something, when this
        ///   one finds nothing.
        /// - Returns: The bytes, nothing yet, or the end.
        /// - Throws: ``failure``.
        package func take(whenReady: @escaping @Sendable () -> Void) throws(SluiceError) -> Take {
            let (found, room) = state.withLock {
                state -> (Result<Take, SluiceError>, CheckedContinuation<Void, Never>?) in
                if let failure = state.failure { return (.failure(failure), nil) }
                guard !state.chunks.isEmpty else {
                    if state.ended { return (.success(.end), nil) }
                    state.ready = whenReady
                    return (.success(.pending), nil)
                }
                var chunk = state.chunks.removeFirst()
                if state.offset > 0 {
                    chunk.removeFirst(state.offset)
                    state.offset = 0
                }
                defer { state.room = nil }
                return (.success(.bytes(chunk)), state.room)
            }
            room?.resume()
            return try found.get()
        }

        /// Reads into a buffer, waiting for the producer up to ``waitLimit``: for a reader that may block.
        ///
        /// - Returns: The bytes read, 0 at the end, -1 when the body failed (then ``failure`` says why).
        fileprivate func read(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
            while true {
                enum Step {
                    case read(Int, CheckedContinuation<Void, Never>?)
                    case wait(Duration?)
                }
                let step = state.withLock { state -> Step in
                    if state.failure != nil { return .read(-1, nil) }
                    guard let first = state.chunks.first else {
                        if state.ended { return .read(0, nil) }
                        state.readerWaits = true
                        return .wait(state.waitLimit)
                    }
                    let count = min(maxLength, first.count - state.offset)
                    first.withUnsafeBufferPointer { bytes in
                        guard let start = bytes.baseAddress else { return }
                        buffer.update(from: start + state.offset, count: count)
                    }
                    state.offset += count
                    guard state.offset == first.count else { return .read(count, nil) }
                    state.chunks.removeFirst()
                    state.offset = 0
                    defer { state.room = nil }
                    return .read(count, state.room)
                }
                switch step {
                case .read(let count, let room):
                    room?.resume()
                    return count
                case .wait(let limit):
                    let deadline = limit.map { DispatchTime.now() + .nanoseconds(Int($0.nanosecondsClamped)) }
                    guard signal.wait(timeout: deadline ?? .distantFuture) == .timedOut else { continue }
                    // The producer may have signalled just after the wait gave up: that signal is taken here, so
                    // that the next wait does not return at once.
                    let signalled = state.withLock { state in
                        defer { state.readerWaits = false }
                        return !state.readerWaits
                    }
                    if signalled {
                        signal.wait()
                        continue
                    }
                    stop(failure: Channel.stalled(limit ?? .zero))
                    return -1
                }
            }
        }

        /// Reads the whole body into memory on a thread of its own, waiting for each chunk up to ``waitLimit``: for a
        /// transport that cannot wait for a producer without blocking a thread that others need.
        ///
        /// - Parameter limit: The most bytes held.
        /// - Returns: The body.
        /// - Throws: ``failure``, or a ``SluiceError`` when the body is longer than `limit`.
        package func collect(upTo limit: Int) async throws(SluiceError) -> Data {
            let result: Result<Data, SluiceError> = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    var body = Data()
                    var buffer = [UInt8](repeating: 0, count: 64 << 10)
                    while true {
                        let count = self.read(into: &buffer, maxLength: buffer.count)
                        guard count > 0 else {
                            continuation.resume(
                                returning: count == 0
                                    ? .success(body) : .failure(self.failure ?? Channel.stalled(.zero))
                            )
                            return
                        }
                        guard body.count + count <= limit else {
                            let tooLong = SluiceError(
                                .transport,
                                message:
                                    "the request body's async sequence gave more than \(limit) bytes, the most this transport holds to send it whole"
                            )
                            self.stop(failure: tooLong)
                            continuation.resume(returning: .failure(tooLong))
                            return
                        }
                        body.append(contentsOf: buffer[0..<count])
                    }
                }
            }
            return try result.get()
        }

        /// The error of a body whose producer gave nothing for as long as a transport waits.
        package static func stalled(_ wait: Duration) -> SluiceError {
            SluiceError(
                .timedOut,
                message:
                    "the request body's async sequence produced no bytes for \(PipelineMetrics.format(wait))",
                underlyingError: URLError(.timedOut)
            )
        }

        /// Who to wake after a change, taken from the state under its lock and woken outside it.
        private struct Wake {
            var reader = false
            var ready: (@Sendable () -> Void)?

            init() {}

            init(taking state: inout State) {
                reader = state.readerWaits
                state.readerWaits = false
                ready = state.ready
                state.ready = nil
            }

            func run(_ signal: DispatchSemaphore) {
                if reader {
                    signal.signal()
                }
                ready?()
            }
        }
    }

    /// What makes this stream's sequence.
    package let source: Source
    /// The chunks of this attempt.
    package let channel = Channel()
    private var status: Stream.Status = .notOpen

    /// A stream of a source's body, for one attempt.
    package init(_ source: Source) {
        self.source = source
        super.init(data: Data())
    }

    /// A new stream of the same source, for another attempt.
    package func forAttempt() -> AsyncBodyStream {
        AsyncBodyStream(source)
    }

    /// Starts the producer; a source of one sequence that was sent already fails the stream.
    package override func open() {
        guard status == .notOpen else { return }
        if let refusal = source.start(into: channel) {
            channel.stop(failure: refusal)
            status = .error
        } else {
            status = .open
        }
    }

    /// Stops the producer, if the body has not ended.
    package override func close() {
        channel.close()
        status = .closed
    }

    /// Reads the next bytes, waiting for the producer; -1 with ``streamError`` when the body failed.
    package override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        if status == .notOpen { open() }
        guard status == .open || status == .reading else { return status == .atEnd ? 0 : -1 }
        let count = channel.read(into: buffer, maxLength: len)
        status = count > 0 ? .open : count == 0 ? .atEnd : .error
        return count
    }

    /// Whether a read is worth making: true until the end, since a read waits for the producer, and for a failed
    /// body too, whose read reports the failure (URLSession on Linux takes `false` for the end of the body, and would
    /// send what it had as if it were all).
    package override var hasBytesAvailable: Bool {
        status != .atEnd && status != .closed
    }

    /// Where the stream stands.
    package override var streamStatus: Stream.Status { status }

    /// Why the body failed, if it did.
    package override var streamError: (any Error)? { channel.failure }

    /// No buffer to lend: bytes are copied out by ``read(_:maxLength:)``.
    package override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }
}

extension Duration {
    /// The duration in nanoseconds, at most `Int64.max`.
    fileprivate var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        guard seconds < Int64.max / 1_000_000_000 else { return .max }
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
