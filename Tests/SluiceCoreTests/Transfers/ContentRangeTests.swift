import Testing

@testable import SluiceCore

@Suite struct ContentRangeTests {
    @Test(
        arguments: [
            ("bytes 0-99/100", 0...99, 100),
            ("bytes 40-99/*", 40...99, nil),
            (" Bytes 5-5/6 ", 5...5, 6),
        ] as [(String, ClosedRange<Int64>, Int64?)]
    )
    func readsARange(value: String, range: ClosedRange<Int64>, length: Int64?) throws {
        let parsed = try #require(ContentRange(value))
        #expect(parsed.range == range)
        #expect(parsed.completeLength == length)
    }

    @Test func readsTheLengthOfAnUnsatisfiedRange() throws {
        let parsed = try #require(ContentRange("bytes */1000"))
        #expect(parsed.range == nil)
        #expect(parsed.completeLength == 1_000)
    }

    @Test(arguments: [
        "", "bytes", "bytes 0-99", "items 0-99/100", "bytes 99-0/100", "bytes 0-100/100", "bytes */*", "bytes -1-5/10",
        "bytes 0-+5/10", "bytes 0-99/100/7", "bytes 0-99999999999999999999/*",
    ])
    func rejectsAMalformedValue(value: String) {
        #expect(ContentRange(value) == nil)
    }
}
