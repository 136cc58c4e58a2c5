import ClientFixtures
import Foundation
import SluiceCore
import Testing

@Suite struct LineDecodingSequenceTests {
    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndEndsALine(end: String) async throws {
        let lines = try await Chunks("a\(end)b\(end)\(end)c\(end)").decodingLines().collected()
        #expect(lines == ["a", "b", "", "c"])
    }

    @Test func aCarriageReturnEndingAChunkAndALineFeedStartingTheNextAreOneLineEnd() async throws {
        #expect(try await Chunks("a\r", "\nb\r", "\r\n", "c").decodingLines().collected() == ["a", "b", "", "c"])
        #expect(try await Chunks("a\r", "", "\nb").decodingLines().collected() == ["a", "b"])
        #expect(try await Chunks("a\r", "\r", "\n").decodingLines().collected() == ["a", ""])
    }

    @Test func aLastLineWithoutATerminatorIsALine() async throws {
        #expect(try await Chunks("a\nb").decodingLines().collected() == ["a", "b"])
        #expect(try await Chunks("a", "b").decodingLines().collected() == ["ab"])
        #expect(try await Chunks("a\n").decodingLines().collected() == ["a"])
        #expect(try await Chunks("").decodingLines().collected() == [])
        #expect(try await Chunks([]).decodingLines().collected() == [])
    }

    @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() async throws {
        let lines = try await Chunks([Data([0x61, 0xFF, 0x0A, 0xE2, 0x82]), Data([0xAC, 0x0A])]).decodingLines()
            .collected()
        #expect(lines == ["a\u{FFFD}", "\u{20AC}"])
    }

    @Test func aLineAtTheLimitIsReadAndOnePastItEndsTheSequence() async throws {
        #expect(
            try await Chunks("12345\r\n", "67", "890").decodingLines(maximumLength: 5).collected() == [
                "12345", "67890",
            ]
        )

        var iterator = Chunks("12345\n", "", "123", "456\n7\n").decodingLines(maximumLength: 5).makeAsyncIterator()
        #expect(try await iterator.next() == "12345")
        let error = await #expect(throws: StreamParseError.self) { try await iterator.next() }
        #expect(error?.code == .lineTooLong)
        #expect(error?.line == 2)
        #expect(error?.column == nil)
        #expect(
            error?.description == """
                error: line 2 is longer than the limit of 5 bytes
                  --> stream line 2
                """
        )
        #expect(error?.localizedDescription == error?.description)
        #expect(try await iterator.next() == nil)
    }

    @Test func anUnterminatedLastLinePastTheLimitIsAnError() async throws {
        let error = await #expect(throws: StreamParseError.self) {
            try await Chunks("ok\n", "123456").decodingLines(maximumLength: 5).collected()
        }
        #expect(error?.line == 2)
    }

    @Test func theBaseIsReadOnlyAsLinesAreAskedFor() async throws {
        let base = EndlessChunks { index in Data("line \(index)\nmore \(index)\n".utf8) }
        var iterator = base.decodingLines().makeAsyncIterator()
        #expect(base.pulled.withLock { $0 } == 0)
        #expect(try await iterator.next() == "line 0")
        #expect(base.pulled.withLock { $0 } == 1)
        #expect(try await iterator.next() == "more 0")
        #expect(base.pulled.withLock { $0 } == 1)
        #expect(try await iterator.next() == "line 1")
        #expect(base.pulled.withLock { $0 } == 2)
    }

    @Test func aLineLongerThanAChunkIsReadAcrossAsManyChunksAsItTakes() async throws {
        // Ten chunks of 100 bytes without a line end, then a line feed: the limit, not a chunk count, bounds it.
        let base = EndlessChunks { index in Data((index == 10 ? "\n" : String(repeating: "x", count: 100)).utf8) }
        var iterator = base.decodingLines(maximumLength: 1000).makeAsyncIterator()
        #expect(try await iterator.next() == String(repeating: "x", count: 1000))
        #expect(base.pulled.withLock { $0 } == 11)
    }

    @Test func anErrorOfTheBaseEndsTheIterationUnchanged() async throws {
        struct Dropped: Error {}
        let (body, input) = AsyncThrowingStream.makeStream(of: Data.self)
        input.yield(Data("data: a\n\ndata: b".utf8))
        input.finish(throwing: Dropped())
        var iterator = body.decodingServerSentEvents().makeAsyncIterator()
        #expect(try await iterator.next() == ServerSentEvent(data: "a"))
        await #expect(throws: Dropped.self) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
    }

    @Test func cancellingTheConsumingTaskEndsTheIteration() async throws {
        let base = EndlessChunks { _ in Data("tick\n".utf8) }
        let task = Task {
            var count = 0
            for try await _ in base.decodingLines() {
                count += 1
                if count == 10 {
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            return count
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(base.pulled.withLock { $0 } == 10)
    }

    @Test func aTaskCancelledFromOutsideStopsReadingAnEndlessBody() async throws {
        let base = EndlessChunks { _ in Data("data: tick\n\n".utf8) }
        let task = Task {
            for try await _ in base.decodingServerSentEvents() {}
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
