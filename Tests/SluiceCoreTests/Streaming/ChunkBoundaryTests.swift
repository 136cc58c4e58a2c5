import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// Every typed stream gives the same result however its body is cut into chunks: at every byte, into two chunks
/// and into three.
@Suite struct ChunkBoundaryTests {
    /// A stream with a byte order mark, every line end, a CRLF, comments, every field, and multi-byte characters.
    private static let eventStream = Array(
        ("\u{FEFF}: hello\r\nretry: 250\nid: 1\revent: add\r\ndata: caf\u{E9}\r\ndata:  \u{1F389}\n\n"
            + "data: second\r\r: between\n" + "id: 2\ndata\n\nevent: tail\ndata: last\r\n\r\ndata: dropped\n").utf8
    )

    private static let expectedEvents = [
        ServerSentEvent(type: "add", data: "caf\u{E9}\n \u{1F389}", lastEventID: "1", retry: .milliseconds(250)),
        ServerSentEvent(data: "second", lastEventID: "1", retry: .milliseconds(250)),
        ServerSentEvent(data: "", lastEventID: "2", retry: .milliseconds(250)),
        ServerSentEvent(type: "tail", data: "last", lastEventID: "2", retry: .milliseconds(250)),
    ]

    @Test func eventsSplitAtEveryByteIntoTwoChunks() async throws {
        #expect(
            try await Chunks(Self.eventStream, cutAt: []).decodingServerSentEvents().collected() == Self.expectedEvents
        )
        for cut in 0...Self.eventStream.count {
            let events = try await Chunks(Self.eventStream, cutAt: [cut]).decodingServerSentEvents().collected()
            #expect(events == Self.expectedEvents, "cut at \(cut)")
        }
    }

    @Test func eventsSplitAtEveryPairOfBytesIntoThreeChunks() async throws {
        var mismatches: [[Int]] = []
        for first in 0...Self.eventStream.count {
            for second in first...Self.eventStream.count {
                let events = try await Chunks(Self.eventStream, cutAt: [first, second]).decodingServerSentEvents()
                    .collected()
                if events != Self.expectedEvents {
                    mismatches.append([first, second])
                }
            }
        }
        #expect(mismatches == [])
    }

    @Test func eventsOneByteAChunk() async throws {
        let chunks = Chunks(Self.eventStream.map { Data([$0]) })
        #expect(try await chunks.decodingServerSentEvents().collected() == Self.expectedEvents)
    }

    private static let text = Array("one\r\ntwo\rthree\n\r\nfive \u{E9}\r\r\nseven".utf8)
    private static let expectedLines = ["one", "two", "three", "", "five \u{E9}", "", "seven"]

    @Test func linesSplitAtEveryPairOfBytes() async throws {
        var mismatches: [[Int]] = []
        for first in 0...Self.text.count {
            for second in first...Self.text.count {
                let lines = try await Chunks(Self.text, cutAt: [first, second]).decodingLines().collected()
                if lines != Self.expectedLines {
                    mismatches.append([first, second])
                }
            }
        }
        #expect(mismatches == [])
    }

    private struct Item: Decodable, Equatable {
        let id: Int
        let name: String
    }

    @Test func jsonLinesSplitAtEveryPairOfBytes() async throws {
        let text = Array(
            ("{\"id\":1,\"name\":\"a\"}\r\n\n  \n" + "{\"id\":2,\"name\":\"\u{E9}\"}\r{\"id\":3,\"name\":\"c\"}").utf8
        )
        let expected = [Item(id: 1, name: "a"), Item(id: 2, name: "\u{E9}"), Item(id: 3, name: "c")]
        var mismatches: [[Int]] = []
        for first in 0...text.count {
            for second in first...text.count {
                let items = try await Chunks(text, cutAt: [first, second]).decodingJSONLines(of: Item.self).collected()
                if items != expected {
                    mismatches.append([first, second])
                }
            }
        }
        #expect(mismatches == [])
    }
}
