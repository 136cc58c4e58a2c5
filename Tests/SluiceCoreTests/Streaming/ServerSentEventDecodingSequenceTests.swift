import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// The event stream interpretation of the WHATWG HTML standard (9.2.6), case by case, and its examples (9.2.5).
@Suite struct ServerSentEventDecodingSequenceTests {
    private func events(_ text: String, maximumEventSize: Int = 1 << 20) async throws -> [ServerSentEvent] {
        try await Chunks(text).decodingServerSentEvents(maximumEventSize: maximumEventSize).collected()
    }

    @Test func standardExampleOfDataLinesJoinedWithLineFeeds() async throws {
        let stream = "data: YHOO\ndata: +2\ndata: 10\n\n"
        #expect(try await events(stream) == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func standardExampleOfCommentsAndLastEventIDs() async throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        #expect(
            try await events(stream) == [
                ServerSentEvent(data: "first event", lastEventID: "1"),
                ServerSentEvent(data: "second event", lastEventID: ""),
                ServerSentEvent(data: " third event", lastEventID: ""),
            ]
        )
    }

    @Test func standardExampleOfEmptyDataAndADiscardedLastBlock() async throws {
        let stream = "data\n\ndata\ndata\n\ndata:"
        #expect(try await events(stream) == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test func standardExampleOfOneSpaceDroppedAfterTheColon() async throws {
        let stream = "data:test\n\ndata: test\n\n"
        #expect(try await events(stream) == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test func eventFieldSetsTheTypeForOneEvent() async throws {
        let stream = "event: add\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\nevent: a\nevent: b\ndata: 4\n\n"
        #expect(
            try await events(stream) == [
                ServerSentEvent(type: "add", data: "1"),
                ServerSentEvent(data: "2"),
                ServerSentEvent(data: "3"),
                ServerSentEvent(type: "b", data: "4"),
            ]
        )
    }

    @Test func anEventWithoutDataIsNotDispatchedAndItsTypeIsForgotten() async throws {
        let stream = "event: add\n\ndata: 1\n\nevent: x\nid: 3\n\n\n\ndata: 2\n\n"
        #expect(
            try await events(stream) == [
                ServerSentEvent(data: "1"),
                ServerSentEvent(data: "2", lastEventID: "3"),
            ]
        )
    }

    @Test func theLastEventIDPersistsUntilAnotherIDOrAnEmptyOne() async throws {
        let stream = "id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\nid:\ndata: d\n\ndata: e\n\n"
        #expect(
            try await events(stream).map(\.lastEventID) == ["7", "7", "8", "", ""]
        )
    }

    @Test func anIDHoldingNULIsIgnored() async throws {
        let stream = "id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n"
        #expect(try await events(stream).map(\.lastEventID) == ["1", "1"])
    }

    @Test func anIDInAnEventWithoutDataStillSetsTheLastEventID() async throws {
        #expect(try await events("id: 5\n\ndata: a\n\n") == [ServerSentEvent(data: "a", lastEventID: "5")])
    }

    @Test(arguments: [
        ("retry: 1500\n", Duration.milliseconds(1500)),
        ("retry:0\n", Duration.milliseconds(0)),
        ("retry\n", nil),
        ("retry:\n", nil),
        ("retry: 15x\n", nil),
        ("retry: -1\n", nil),
        ("retry: 1.5\n", nil),
        ("retry:  15\n", nil),
        ("retry: 99999999999999999999999\n", nil),
        ("Retry: 15\n", nil),
    ])
    func retryTakesOnlyASCIIDigits(line: String, expected: Duration?) async throws {
        #expect(try await events(line + "data: x\n\n").map(\.retry) == [expected])
    }

    @Test func retryPersistsAndALaterInvalidOneChangesNothing() async throws {
        let stream = "retry: 10\n\ndata: a\n\nretry: x\ndata: b\n\nretry: 20\ndata: c\n\n"
        #expect(try await events(stream).map(\.retry) == [.milliseconds(10), .milliseconds(10), .milliseconds(20)])
    }

    @Test func commentsUnknownFieldsAndFieldNamesAreCaseSensitive() async throws {
        let stream = ":comment\n: another\ndata: a\nfoo: bar\nData: no\nDATA\n:data: no\n\n"
        #expect(try await events(stream) == [ServerSentEvent(data: "a")])
    }

    @Test func onlyTheFirstColonSplitsAndOnlyOneSpaceIsDropped() async throws {
        let stream = "data: a: b\ndata:  c\ndata:\td\ndata:: e\n\n"
        #expect(try await events(stream) == [ServerSentEvent(data: "a: b\n c\n\td\n: e")])
    }

    @Test func aFieldWithoutAColonHasAnEmptyValue() async throws {
        #expect(try await events("data\ndata\ndata: x\n\n") == [ServerSentEvent(data: "\n\nx")])
    }

    @Test func onlyOneTrailingLineFeedIsRemoved() async throws {
        #expect(try await events("data: a\ndata:\n\n") == [ServerSentEvent(data: "a\n")])
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func everyLineEndWorks(end: String) async throws {
        let stream = ["event: e", "data: 1", "data: 2", "", "data: 3", "", ""].joined(separator: end)
        #expect(
            try await events(stream) == [ServerSentEvent(type: "e", data: "1\n2"), ServerSentEvent(data: "3")]
        )
    }

    @Test func mixedLineEndsAreEachOneEnd() async throws {
        let stream = "data: a\rdata: b\r\ndata: c\n\r\ndata: d\r\rdata: e\n\n"
        #expect(
            try await events(stream) == [
                ServerSentEvent(data: "a\nb\nc"), ServerSentEvent(data: "d"), ServerSentEvent(data: "e"),
            ]
        )
    }

    @Test func aByteOrderMarkAtTheStartIsDroppedOnce() async throws {
        #expect(try await events("\u{FEFF}data: a\n\n") == [ServerSentEvent(data: "a")])
        // A second mark is part of the field name, which is then unknown.
        #expect(try await events("\u{FEFF}\u{FEFF}data: a\n\ndata: b\n\n") == [ServerSentEvent(data: "b")])
        // A mark after the start is text like any other.
        #expect(try await events("data: a\n\n\u{FEFF}data: b\n\n") == [ServerSentEvent(data: "a")])
        #expect(try await events("data: \u{FEFF}b\n\n") == [ServerSentEvent(data: "\u{FEFF}b")])
    }

    @Test func anEventWithoutItsBlankLineIsDroppedAtTheEnd() async throws {
        #expect(try await events("data: a\n\ndata: b\n") == [ServerSentEvent(data: "a")])
        #expect(try await events("data: a\n\ndata: b") == [ServerSentEvent(data: "a")])
        #expect(try await events("") == [])
    }

    @Test func textIsUTF8WithReplacementCharacters() async throws {
        let bytes = Data("data: h\u{E9}llo \u{1F389} ".utf8) + Data([0xFF, 0xC3]) + Data("\n\n".utf8)
        let events = try await Chunks([bytes]).decodingServerSentEvents().collected()
        #expect(events == [ServerSentEvent(data: "h\u{E9}llo \u{1F389} \u{FFFD}\u{FFFD}")])
    }

    @Test func aLineOverTheLimitEndsTheStreamNamingTheLimitAndTheLine() async throws {
        let stream = Chunks(": ok\n", "data: 0123456789", "0123456789\n\n")
        var iterator = stream.decodingServerSentEvents(maximumLineLength: 16).makeAsyncIterator()
        let error = await #expect(throws: StreamParseError.self) { try await iterator.next() }
        #expect(error?.code == .lineTooLong)
        #expect(error?.line == 2)
        #expect(
            error?.description == """
                error: line 2 is longer than the limit of 16 bytes
                  --> stream line 2
                """
        )
        #expect(try await iterator.next() == nil)
    }

    @Test func anEventOverTheLimitEndsTheStream() async throws {
        let stream = "data: 1234\n\ndata: 1234\ndata: 5678\n\n"
        let error = await #expect(throws: StreamParseError.self) { try await events(stream, maximumEventSize: 9) }
        #expect(error?.code == .eventTooLarge)
        #expect(
            error?.description == """
                error: the data of the event at line 4 is larger than the limit of 9 bytes
                  --> stream line 4
                """
        )
    }

    @Test func theIteratorKeepsWhatAReconnectionNeedsAlsoFromBlocksWithoutData() async throws {
        var iterator = Chunks("id: 1\ndata: a\n\nid: 2\n\nretry: 300\n: ping\nid: 3\n").decodingServerSentEvents()
            .makeAsyncIterator()
        #expect(iterator.lastEventID == "")
        #expect(iterator.retry == nil)
        #expect(try await iterator.next() == ServerSentEvent(data: "a", lastEventID: "1"))
        #expect(iterator.lastEventID == "1")
        #expect(try await iterator.next() == nil)
        // The block after id 2 had no data but ended with a blank line; the one setting id 3 never ended.
        #expect(iterator.lastEventID == "2")
        #expect(iterator.retry == .milliseconds(300))
    }

    @Test func theSequenceIsSendableWhenItsBaseIs() async throws {
        let events = Chunks("data: a\n\n").decodingServerSentEvents()
        let task = Task { try await events.collected() }
        #expect(try await task.value == [ServerSentEvent(data: "a")])
    }
}
