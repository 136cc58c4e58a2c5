import ClientFixtures
import Foundation
import SluiceCore
import Testing

@Suite struct HTTPBodyTests {
    @Test func handsOutDataInMemoryAsOneChunk() async throws {
        var chunks: [Data] = []
        for try await chunk in HTTPBody(Data("whole".utf8)) {
            chunks.append(chunk)
        }
        #expect(chunks == [Data("whole".utf8)])
        #expect(HTTPBody(Data("whole".utf8)).expectedLength == 5)
    }

    @Test func anEmptyBodyHasNoChunks() async throws {
        var count = 0
        for try await _ in HTTPBody(Data()) {
            count += 1
        }
        #expect(count == 0)
    }

    @Test func readsAnAsyncSequenceSkippingEmptyChunks() async throws {
        let (chunks, input) = AsyncStream.makeStream(of: Data.self)
        for part in ["a", "", "bc", ""] {
            input.yield(Data(part.utf8))
        }
        input.finish()
        let collected = try await HTTPBody(chunks).collect(upTo: 10)
        #expect(String(decoding: collected, as: UTF8.self) == "abc")
    }

    @Test func aWrittenBodyArrivesInOrderAndReportsWhatWaits() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: 9)
        #expect(writer.write(Data("one".utf8)) == 3)
        #expect(writer.write(Data("two".utf8)) == 6)
        #expect(writer.bufferedBytes == 6)
        let reader = Task { try await body.collect(upTo: 100) }
        writer.write(Data("six".utf8))
        writer.finish()
        #expect(String(decoding: try await reader.value, as: UTF8.self) == "onetwosix")
        #expect(body.expectedLength == 9)
    }

    @Test func theWritersErrorIsThrownAfterTheChunksBeforeIt() async throws {
        struct Cut: Error {}
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        writer.write(Data("partial".utf8))
        writer.finish(throwing: Cut())
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("partial".utf8))
        await #expect(throws: Cut.self) { try await iterator.next() }
    }

    @Test func aBodyIsReadOnce() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        writer.finish()
        _ = try await body.collect(upTo: 1)
        let error = await #expect(throws: SluiceError.self) { try await body.collect(upTo: 1) }
        #expect(error?.message == "the response body was already read: a streamed body can be read once")
    }

    @Test func collectingPastTheLimitFailsAndSaysSo() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        writer.write(Data(repeating: 1, count: 8))
        writer.write(Data(repeating: 2, count: 8))
        writer.finish()
        let error = await #expect(throws: SluiceError.self) { try await body.collect(upTo: 10) }
        #expect(error?.message == "the response body is more than 10 bytes, more than the limit of 10 bytes")
        let declared = HTTPBody(Data(repeating: 0, count: 20))
        let early = await #expect(throws: SluiceError.self) { try await declared.collect(upTo: 10) }
        #expect(early?.message == "the response body is 20 bytes, more than the limit of 10 bytes")
    }

    @Test func cancellingTheReaderTellsTheWriter() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        let (terminations, input) = AsyncStream.makeStream(of: HTTPBody.Termination.self)
        writer.onTermination { reason in
            input.yield(reason)
            input.finish()
        }
        let reader = Task { try await body.collect(upTo: 100) }
        writer.write(Data("x".utf8))
        reader.cancel()
        await #expect(throws: CancellationError.self) { try await reader.value }
        var reasons: [HTTPBody.Termination] = []
        for await reason in terminations {
            reasons.append(reason)
        }
        #expect(reasons == [.cancelled])
        #expect(writer.isTerminated)
        #expect(writer.write(Data("late".utf8)) == 0)
    }

    @Test func droppingTheBodyBeforeItsEndTellsTheWriter() async throws {
        let reason = Locked<HTTPBody.Termination?>(nil)
        var writer: HTTPBody.Writer?
        do {
            let (body, bodyWriter) = HTTPBody.makeStream(expectedLength: nil)
            writer = bodyWriter
            bodyWriter.onTermination { why in reason.withLock { $0 = why } }
            bodyWriter.write(Data("unread".utf8))
            _ = body
        }
        #expect(reason.withLock { $0 } == .abandoned)
        #expect(writer?.bufferedBytes == 0)
    }

    @Test func aBodyReadToItsEndDoesNotTellTheWriterItWasAbandoned() async throws {
        let reason = Locked<HTTPBody.Termination?>(nil)
        do {
            let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
            writer.onTermination { why in reason.withLock { $0 = why } }
            writer.write(Data("all".utf8))
            writer.finish()
            _ = try await body.collect(upTo: 10)
        }
        #expect(reason.withLock { $0 } == nil)
    }

    @Test func theWriterHearsWhenABehindReaderCatchesUp() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        let demands = Locked(0)
        writer.onDemand(highWater: 10, lowWater: 4) { demands.withLock { $0 += 1 } }
        for _ in 0..<4 {
            writer.write(Data(repeating: 0, count: 4))
        }
        var iterator = body.makeAsyncIterator()
        _ = try await iterator.next()  // 12 waiting
        _ = try await iterator.next()  // 8
        #expect(demands.withLock { $0 } == 0)
        _ = try await iterator.next()  // 4: caught up
        #expect(demands.withLock { $0 } == 1)
        _ = try await iterator.next()
        #expect(demands.withLock { $0 } == 1)
    }

    /// The trailers a writer finishes with are the response's once its body has been read to its end, through a
    /// relayed body too, and a collected response keeps them.
    @Test func trailersAreReportedOnceTheBodyHasBeenRead() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        let response = HTTPResponse.Streamed(status: .ok, body: body)
        let relayed = response.replacingBody(with: body.relayed { try await $0.next() })
        writer.write(Data("message".utf8))
        writer.finish(trailers: ["grpc-status": "0"])
        #expect(relayed.trailers.isEmpty)
        var iterator = relayed.body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("message".utf8))
        #expect(try await iterator.next() == nil)
        #expect(relayed.trailers["grpc-status"] == "0")
        #expect(response.trailers["grpc-status"] == "0")
    }

    /// A collected response has the trailers, and a buffered one made streamed again keeps them.
    @Test func collectingKeepsTheTrailers() async throws {
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        writer.write(Data("abc".utf8))
        writer.finish(trailers: ["x-checksum": "done"])
        let collected = try await HTTPResponse.Streamed(status: .ok, body: body).collect(upTo: 10)
        #expect(collected.trailers["x-checksum"] == "done")
        let again = HTTPResponse.Streamed(collected)
        #expect(try await again.body.collect(upTo: 10) == Data("abc".utf8))
        #expect(again.trailers["x-checksum"] == "done")
    }
}
