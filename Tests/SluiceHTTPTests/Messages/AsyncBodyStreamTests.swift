import Foundation
import SluiceHTTP
import Testing

/// A request body from an async sequence, without a transport: what the event loop takes, what a blocking reader
/// reads, how far the producer runs ahead, and the attempts a source allows.
@Suite struct AsyncBodyStreamTests {
    /// Chunks of `size` bytes, `count` of them, each byte its chunk's number.
    static func chunks(_ count: Int, size: Int = 4) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            for index in 0..<count {
                continuation.yield([UInt8](repeating: UInt8(index), count: size))
            }
            continuation.finish()
        }
    }

    /// Takes every chunk on the caller's task, awaiting the producer where the take finds nothing yet.
    static func takeAll(_ channel: AsyncBodyStream.Channel) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let (ready, readiness) = AsyncStream<Void>.makeStream()
            switch try channel.take(whenReady: { readiness.yield() }) {
            case .bytes(let chunk):
                bytes += chunk
            case .end:
                return bytes
            case .pending:
                for await _ in ready { break }
            }
        }
    }

    /// Reads every byte on a thread of its own, as URLSession does: `hasBytesAvailable`, then a read that blocks.
    static func readAll(_ stream: InputStream) async -> (bytes: [UInt8], result: Int) {
        // The stream is read by one thread at a time: the test's task waits while the reading thread reads.
        struct Handed: @unchecked Sendable { let stream: InputStream }
        let handed = Handed(stream: stream)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: readBlocking(handed.stream)) }
        }
    }

    private static func readBlocking(_ stream: InputStream) -> (bytes: [UInt8], result: Int) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 3)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { return (bytes, count) }
            bytes += buffer[0..<count]
        }
        return (bytes, 0)
    }

    @Test func theTransportTakesEveryChunkInOrderThenTheEnd() async throws {
        let stream = AsyncBodyStream(.init(once: Self.chunks(5)))
        stream.open()
        let bytes = try await Self.takeAll(stream.channel)
        #expect(bytes == (0..<5).flatMap { [UInt8](repeating: UInt8($0), count: 4) })
    }

    @Test func aBlockingReaderGetsEveryByteThenZero() async throws {
        let stream = AsyncBodyStream(.init(once: Self.chunks(3, size: 5)))
        #expect(stream.streamStatus == .notOpen)
        stream.open()
        let (bytes, result) = await Self.readAll(stream)
        #expect(bytes == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
        #expect(result == 0)
        #expect(stream.streamStatus == .atEnd)
        #expect(!stream.hasBytesAvailable)
    }

    /// Back-pressure: whenever the sequence is asked for its next chunk, at most two wait for the transport.
    @Test func theProducerRunsAtMostTwoChunksAhead() async throws {
        let channelBox = Locked<AsyncBodyStream.Channel?>(nil)
        let mostWaiting = Locked(0)
        let source = AsyncBodyStream.Source(making: {
            AsyncStream<[UInt8]>(unfolding: {
                let waiting = channelBox.withLock { $0 }?.waitingChunks ?? 0
                mostWaiting.withLock { $0 = max($0, waiting) }
                return [1, 2, 3]
            })
            .prefix(200)
        })
        let stream = AsyncBodyStream(source)
        channelBox.withLock { $0 = stream.channel }
        stream.open()
        // A slow transport: the producer has every chance to run ahead between takes.
        var bytes: [UInt8] = []
        while true {
            for _ in 0..<8 { await Task.yield() }
            let (ready, readiness) = AsyncStream<Void>.makeStream()
            let taken = try stream.channel.take(whenReady: { readiness.yield() })
            if case .bytes(let chunk) = taken { bytes += chunk }
            if taken == .end { break }
            if taken == .pending { for await _ in ready { break } }
        }
        #expect(bytes.count == 600)
        #expect(mostWaiting.withLock { $0 } <= AsyncBodyStream.Channel.chunksAhead)
    }

    @Test func aSequenceThatThrowsFailsTheBodyWithItsError() async throws {
        struct Broken: Error, CustomStringConvertible {
            var description: String { "the disk went away" }
        }
        let failing = AsyncThrowingStream<[UInt8], any Error> { continuation in
            continuation.yield([1, 2])
            continuation.finish(throwing: Broken())
        }
        let stream = AsyncBodyStream(.init(once: failing))
        stream.open()
        let error = await #expect(throws: SluiceError.self) { try await Self.takeAll(stream.channel) }
        #expect(error?.message == "the request body's async sequence failed: the disk went away")
        #expect(error?.code == .transport)

        let reread = AsyncBodyStream(
            .init(once: AsyncThrowingStream<[UInt8], any Error> { $0.finish(throwing: Broken()) })
        )
        reread.open()
        let (_, result) = await Self.readAll(reread)
        #expect(result == -1)
        #expect(
            (reread.streamError as? SluiceError)?.message
                == "the request body's async sequence failed: the disk went away"
        )
    }

    /// A sequence given once is sent once: the next attempt's stream fails, saying what to do instead.
    @Test func aSingleSequenceIsSentOnceAndTheNextAttemptSaysWhy() async throws {
        let first = AsyncBodyStream(.init(once: Self.chunks(2)))
        #expect(!first.source.isReplayable)
        let attempt = first.forAttempt()
        attempt.open()
        #expect(try await Self.takeAll(attempt.channel).count == 8)

        let again = first.forAttempt()
        again.open()
        #expect(again.streamStatus == .error)
        let error = #expect(throws: SluiceError.self) { try again.channel.take(whenReady: {}) }
        #expect(
            error?.message
                == "the request body is an async sequence that can be sent once, and was sent already; to send it again (a retry, a replay after 401, a redirect), give the body as a function that makes a fresh sequence for each attempt"
        )
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(again.read(&buffer, maxLength: 4) == -1)
    }

    @Test func aSourceThatMakesSequencesSendsEachAttemptFromTheStart() async throws {
        let stream = AsyncBodyStream(.init(making: { Self.chunks(3) }))
        #expect(stream.source.isReplayable)
        for _ in 0..<3 {
            let attempt = stream.forAttempt()
            attempt.open()
            #expect(try await Self.takeAll(attempt.channel) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
        }
    }

    /// Closing the stream before the body's end stops the producer: its sequence is cancelled.
    @Test func closingBeforeTheEndStopsTheProducer() async throws {
        let (ended, ending) = AsyncStream<Void>.makeStream()
        let endless = AsyncStream<[UInt8]> { continuation in
            continuation.yield([7])
            continuation.onTermination = { _ in ending.yield() }
        }
        let stream = AsyncBodyStream(.init(once: endless))
        stream.open()
        let (ready, readiness) = AsyncStream<Void>.makeStream()
        if try stream.channel.take(whenReady: { readiness.yield() }) == .pending {
            for await _ in ready { break }
            #expect(try stream.channel.take(whenReady: {}) == .bytes([7]))
        }
        stream.close()
        for await _ in ended { break }
        let error = #expect(throws: SluiceError.self) { try stream.channel.take(whenReady: {}) }
        #expect(error?.code == .cancelled)
        #expect(error?.message == "the request body was closed before its end")
    }

    /// A body collected whole stops at its limit with an error naming it, and stops the producer.
    @Test func collectingStopsAtTheLimit() async throws {
        let stream = AsyncBodyStream(.init(once: Self.chunks(10, size: 4)))
        stream.open()
        let error = await #expect(throws: SluiceError.self) { try await stream.channel.collect(upTo: 10) }
        #expect(
            error?.message
                == "the request body's async sequence gave more than 10 bytes, the most this transport holds to send it whole"
        )
        #expect(stream.channel.failure?.message == error?.message)

        let whole = AsyncBodyStream(.init(once: Self.chunks(3, size: 2)))
        whole.open()
        #expect(try await whole.channel.collect(upTo: 6) == Data([0, 0, 1, 1, 2, 2]))
    }

    /// A blocking reader waits for the producer no longer than its limit, and then fails as timed out.
    @Test func aBlockingReadWaitsNoLongerThanItsLimit() async throws {
        let silent = AsyncStream<[UInt8]> { _ in }
        let stream = AsyncBodyStream(.init(once: silent))
        stream.channel.waitLimit = .milliseconds(20)
        stream.open()
        let (_, result) = await Self.readAll(stream)
        #expect(result == -1)
        let failure = try #require(stream.streamError as? SluiceError)
        #expect(failure.code == .timedOut)
        #expect(failure.message == "the request body's async sequence produced no bytes for 20.00ms")
    }
}

@Suite struct AsyncBodyRequestTests {
    @Test func theRequestKeepsItsAsyncBody() throws {
        var request = URLRequest(url: try #require(URL(string: "http://example.com/")))
        request.setBody(AsyncBodyStreamTests.chunks(1), length: 4)
        #expect(request.asyncBody != nil, "\(type(of: request.httpBodyStream))")
        let copy = request
        #expect(copy.asyncBody === request.asyncBody)
        #expect(request.forThisAttempt.asyncBody !== request.asyncBody)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == "4")
    }
}
