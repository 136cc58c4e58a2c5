public import Foundation

/// The body of a streamed response: its bytes as they arrive, in chunks, as an `AsyncSequence`.
///
/// A ``RequestPerformer`` returns one in a ``HTTPResponse/Streamed`` as soon as the response's head has arrived. Read
/// it with `for try await`, or gather it with ``collect(upTo:)``:
///
/// ```swift
/// let response = try await NetworkRequestPerformer().stream(URLRequest(url: url))
/// var received = 0
/// for try await chunk in response.body {
///     received += chunk.count
/// }
/// ```
///
/// A body is read once: it is the transfer itself, not a copy of it. A second iterator, or a second
/// ``collect(upTo:)``, throws a ``SluiceError/Code/transport`` error that says so. A body that is dropped before its
/// end, or whose reading task is cancelled, ends the transfer: the performer that made it is told at once, and
/// stops receiving.
///
/// A performer of your own makes one with ``makeStream(expectedLength:)`` and writes the chunks as they arrive, or
/// wraps an `AsyncSequence` of chunks it already has with ``init(_:expectedLength:)-(S,_)``.
public struct HTTPBody: AsyncSequence, Sendable {
    /// A chunk of the body's bytes, never empty.
    public typealias Element = Data
    /// What reading the body may throw: whatever failed the transfer.
    public typealias Failure = any Error

    /// The body's length in bytes when the response declared it (`Content-Length`), or `nil`.
    public let expectedLength: Int64?

    private let source: Source
    /// Where the trailer fields that followed the body are read, once it has ended.
    ///
    /// They are the writer's channel's, or fields known already. A relayed body shares the one of the body it reads
    /// through; neither holds a body, so that releasing one still ends its transfer.
    private var trailerSource = TrailerSource.fields([:])

    private enum TrailerSource: Sendable {
        case fields(HTTPHeaders)
        case channel(Channel)
    }

    private enum Source: Sendable {
        case data(Data)
        case channel(Consumer)
        case sequence(Once, @Sendable () -> AsyncIterator)
    }

    /// A body of bytes already in memory, handed out as one chunk (none when it is empty).
    ///
    /// - Parameter data: The bytes.
    public init(_ data: Data) {
        expectedLength = Int64(data.count)
        source = .data(data)
    }

    /// A body read from an `AsyncSequence` of chunks; empty chunks are skipped.
    ///
    /// - Parameters:
    ///   - chunks: The chunks, read once.
    ///   - expectedLength: The total length in bytes when known.
    public init<S: AsyncSequence & Sendable>(_ chunks: S, expectedLength: Int64? = nil) where S.Element == Data {
        self.expectedLength = expectedLength
        source = .sequence(
            Once(),
            {
                var iterator = chunks.makeAsyncIterator()
                return AsyncIterator(next: { try await iterator.next() })
            }
        )
    }

    fileprivate init(consumer: Consumer, channel: Channel, expectedLength: Int64?) {
        self.expectedLength = expectedLength
        source = .channel(consumer)
        trailerSource = .channel(channel)
    }

    /// A body of bytes in memory followed by trailer fields, as a buffered response's is.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - trailers: The fields after them.
    package init(_ data: Data, trailers: HTTPHeaders) {
        self.init(data)
        trailerSource = .fields(trailers)
    }

    /// The trailer fields that followed the body (HTTP/2 trailers), once the body has been read to its end: empty
    /// before then, and when none came.
    package var trailers: HTTPHeaders {
        switch trailerSource {
        case .fields(let fields): fields
        case .channel(let channel): channel.trailers
        }
    }

    /// This body with the trailers of another, which this one reads through: how a decorator keeps them.
    ///
    /// - Parameter other: The body whose trailers this one reports.
    /// - Returns: The body, reporting `other`'s trailers.
    package func reportingTrailers(of other: HTTPBody) -> HTTPBody {
        var copy = self
        copy.trailerSource = other.trailerSource
        return copy
    }

    /// Makes an iterator over the chunks.
    ///
    /// - Returns: The iterator; for a body already read, one that throws a ``SluiceError`` saying so.
    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .data(let data):
            var sent = data.isEmpty
            return AsyncIterator(next: {
                defer { sent = true }
                return sent ? nil : data
            })
        case .channel(let consumer):
            guard consumer.claim() else { return AsyncIterator.alreadyRead() }
            return AsyncIterator(next: { try await consumer.next() })
        case .sequence(let once, let make):
            guard once.claim() else { return AsyncIterator.alreadyRead() }
            return make()
        }
    }

    /// Reads the whole body into memory.
    ///
    /// - Parameter limit: The most bytes accepted; the transfer is ended as soon as the body passes it.
    /// - Returns: The bytes.
    /// - Throws: ``SluiceError/Code/transport`` when the body is longer than `limit` or was already read; what the
    ///   transfer throws otherwise.
    public func collect(upTo limit: Int) async throws -> Data {
        if let expectedLength, expectedLength > limit {
            throw HTTPBody.tooLarge(size: "\(expectedLength) bytes", limit: limit)
        }
        var collected = Data()
        for try await chunk in self {
            guard collected.count + chunk.count <= limit else {
                throw HTTPBody.tooLarge(size: "more than \(limit) bytes", limit: limit)
            }
            collected.append(chunk)
        }
        return collected
    }

    /// The error of a body longer than a limit; the buffered transport reports the same.
    package static func tooLarge(size: String, limit: Int) -> SluiceError {
        SluiceError(.transport, message: "the response body is \(size), more than the limit of \(limit) bytes")
    }

    /// Iterates over a body's chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let nextChunk: () async throws -> Data?

        fileprivate init(next: @escaping () async throws -> Data?) {
            nextChunk = next
        }

        fileprivate static func alreadyRead() -> AsyncIterator {
            AsyncIterator(next: {
                throw SluiceError(
                    .transport,
                    message: "the response body was already read: a streamed body can be read once"
                )
            })
        }

        /// The next chunk, never empty, or `nil` at the end of the body.
        ///
        /// - Returns: The chunk, or `nil` at the end.
        /// - Throws: What failed the transfer; `CancellationError` when the reading task was cancelled.
        public mutating func next() async throws -> Data? {
            while let chunk = try await nextChunk() {
                if !chunk.isEmpty {
                    return chunk
                }
            }
            return nil
        }
    }

    /// Marks a one-time read.
    fileprivate final class Once: Sendable {
        private let claimed = Locked(false)

        func claim() -> Bool {
            claimed.withLock { claimed in
                defer { claimed = true }
                return !claimed
            }
        }
    }
}

// MARK: - Writing a body

extension HTTPBody {
    /// Makes a body that a producer writes as the bytes arrive, and the writer to write it with.
    ///
    /// The writer reports how many bytes are waiting to be read, so that a transport can stop receiving while the
    /// reader is behind and start again when it has caught up (``Writer/onDemand(highWater:lowWater:_:)``), and
    /// tells the transport when the reader is gone (``Writer/onTermination(_:)``): it was cancelled, or dropped the
    /// body before its end.
    ///
    /// ```swift
    /// let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
    /// writer.write(Data("first ".utf8))
    /// writer.write(Data("and last".utf8))
    /// writer.finish()
    /// let text = String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)  // "first and last"
    /// ```
    ///
    /// - Parameter expectedLength: The body's length in bytes when known.
    /// - Returns: The body, to hand out, and its writer, to keep.
    public static func makeStream(expectedLength: Int64?) -> (body: HTTPBody, writer: Writer) {
        let channel = Channel()
        let consumer = Consumer(channel: channel)
        return (
            HTTPBody(consumer: consumer, channel: channel, expectedLength: expectedLength), Writer(channel: channel)
        )
    }

    /// Why a body's reader stopped before the writer finished.
    public enum Termination: Sendable, Hashable {
        /// The reading task was cancelled.
        case cancelled
        /// The body was dropped, or its iterator released, before its end.
        case abandoned
    }

    /// The producing end of a body made with ``HTTPBody/makeStream(expectedLength:)``.
    ///
    /// Chunks written after ``finish(throwing:)``, or after the reader has gone, are discarded.
    public struct Writer: Sendable {
        fileprivate let channel: Channel

        /// Appends a chunk for the reader.
        ///
        /// - Parameter chunk: The bytes; an empty chunk is ignored.
        /// - Returns: The bytes now waiting to be read, this chunk included; 0 when the reader has gone.
        @discardableResult
        public func write(_ chunk: Data) -> Int {
            channel.write(chunk)
        }

        /// Ends the body, normally or with an error the reader then throws, after the chunks already written.
        ///
        /// - Parameter error: The error that ended the transfer, or `nil` for a complete body.
        public func finish(throwing error: (any Error)? = nil) {
            channel.finish(error)
        }

        /// Ends the body normally, after the chunks already written, with the trailer fields that followed it, which
        /// the response reports once its body has been read (``HTTPResponse/Streamed/trailers``).
        ///
        /// - Parameter trailers: The trailer fields.
        public func finish(trailers: HTTPHeaders) {
            channel.finish(nil, trailers: trailers)
        }

        /// The bytes written and not yet read.
        public var bufferedBytes: Int { channel.bufferedBytes }

        /// Whether the reader has gone: it was cancelled or dropped the body.
        public var isTerminated: Bool { channel.isTerminated }

        /// Sets what runs, once, when the reader goes before the end, to cancel the transfer.
        ///
        /// It runs at once if the reader has already gone.
        ///
        /// - Parameter handler: Called with why the reader stopped; it must not block.
        public func onTermination(_ handler: @escaping @Sendable (Termination) -> Void) {
            channel.onTermination(handler)
        }

        /// Sets what runs each time the reader has drained the waiting bytes to `lowWater` or fewer, after they had
        /// passed `highWater`: a transport that paused receiving at `highWater` resumes there.
        ///
        /// - Parameters:
        ///   - highWater: The waiting bytes above which the writer counts the reader as behind.
        ///   - lowWater: The waiting bytes at or below which the reader has caught up.
        ///   - handler: Called when the reader has caught up; it must not block.
        public func onDemand(
            highWater: Int,
            lowWater: Int,
            _ handler: @escaping @Sendable () -> Void
        ) {
            channel.onDemand(highWater: highWater, lowWater: lowWater, handler)
        }
    }

    /// The chunks between a writer and the one reader, and the reader's waiting continuation.
    fileprivate final class Channel: Sendable {
        private struct State {
            var chunks: [Data] = []
            var head = 0
            var buffered = 0
            var ended = false
            var failure: (any Error)?
            var terminated = false
            var waiter: CheckedContinuation<Data?, any Error>?
            var onTermination: (@Sendable (Termination) -> Void)?
            var demand: (high: Int, low: Int, handler: @Sendable () -> Void)?
            var behind = false
            var trailers: HTTPHeaders = [:]
        }

        private let state = Locked(State())

        func write(_ chunk: Data) -> Int {
            guard !chunk.isEmpty else { return bufferedBytes }
            let (waiter, buffered) = state.withLock { state -> (CheckedContinuation<Data?, any Error>?, Int) in
                guard !state.ended, !state.terminated else { return (nil, 0) }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (waiter, state.buffered)
                }
                state.chunks.append(chunk)
                state.buffered += chunk.count
                if let demand = state.demand, state.buffered > demand.high {
                    state.behind = true
                }
                return (nil, state.buffered)
            }
            waiter?.resume(returning: chunk)
            return buffered
        }

        func finish(_ error: (any Error)?, trailers: HTTPHeaders = [:]) {
            let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
                guard !state.ended else { return nil }
                state.ended = true
                state.failure = error
                state.trailers = trailers
                state.onTermination = nil
                defer { state.waiter = nil }
                return state.waiter
            }
            if let error {
                waiter?.resume(throwing: error)
            } else {
                waiter?.resume(returning: nil)
            }
        }

        var bufferedBytes: Int { state.withLock { $0.buffered } }

        /// The trailers the writer finished with, once it has; reported only once the reader has had every chunk.
        var trailers: HTTPHeaders {
            state.withLock { state in
                state.ended && state.head == state.chunks.count ? state.trailers : [:]
            }
        }

        var isTerminated: Bool { state.withLock { $0.terminated } }

        func onTermination(_ handler: @escaping @Sendable (Termination) -> Void) {
            let runNow = state.withLock { state -> Termination? in
                if state.terminated { return .abandoned }
                if !state.ended { state.onTermination = handler }
                return nil
            }
            if let runNow { handler(runNow) }
        }

        func onDemand(highWater: Int, lowWater: Int, _ handler: @escaping @Sendable () -> Void) {
            state.withLock { $0.demand = (highWater, lowWater, handler) }
        }

        /// The next chunk for the reader, waiting for one when none is buffered.
        func next() async throws -> Data? {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let (result, demand) = state.withLock {
                        state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
                        if state.head < state.chunks.count {
                            let chunk = state.chunks[state.head]
                            state.chunks[state.head] = Data()
                            state.head += 1
                            if state.head == state.chunks.count {
                                state.chunks.removeAll(keepingCapacity: true)
                                state.head = 0
                            } else if state.head >= 64, state.head * 2 >= state.chunks.count {
                                state.chunks.removeFirst(state.head)
                                state.head = 0
                            }
                            state.buffered -= chunk.count
                            var demand: (@Sendable () -> Void)?
                            if state.behind, let wanted = state.demand, state.buffered <= wanted.low {
                                state.behind = false
                                demand = wanted.handler
                            }
                            return (.success(chunk), demand)
                        }
                        if state.terminated {
                            return (.failure(CancellationError()), nil)
                        }
                        if state.ended {
                            if let failure = state.failure {
                                state.failure = nil
                                return (.failure(failure), nil)
                            }
                            return (.success(nil), nil)
                        }
                        state.waiter = continuation
                        return (nil, nil)
                    }
                    demand?()
                    if let result {
                        continuation.resume(with: result)
                    }
                }
            } onCancel: {
                terminate(.cancelled)
            }
        }

        /// The reader has gone: fails a waiting read, drops the chunks, and tells the writer.
        func terminate(_ reason: Termination) {
            let (waiter, handler) = state.withLock {
                state -> (CheckedContinuation<Data?, any Error>?, (@Sendable (Termination) -> Void)?) in
                guard !state.terminated else { return (nil, nil) }
                state.terminated = true
                state.chunks = []
                state.head = 0
                state.buffered = 0
                defer {
                    state.waiter = nil
                    state.onTermination = nil
                    state.demand = nil
                }
                return (state.waiter, state.ended ? nil : state.onTermination)
            }
            waiter?.resume(throwing: CancellationError())
            handler?(reason)
        }
    }

    /// The reading end: one claim for one iterator, and the end of the transfer when it is released early.
    fileprivate final class Consumer: Sendable {
        private let channel: Channel
        private let once = Once()

        init(channel: Channel) {
            self.channel = channel
        }

        func claim() -> Bool {
            once.claim()
        }

        func next() async throws -> Data? {
            try await channel.next()
        }

        deinit {
            channel.terminate(.abandoned)
        }
    }
}

/// An iterator belongs to the one task that reads the body, so it deliberately is not `Sendable`.
@available(*, unavailable)
extension HTTPBody.AsyncIterator: Sendable {}
