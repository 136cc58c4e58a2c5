import Foundation
import Testing

@testable import SluiceJSON

@Suite struct JSONBufferPoolTests {
    /// A distinct address for each buffer; the pool never reads or frees what it keeps.
    static func fake(_ number: Int) -> UnsafeMutableRawPointer {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: number << 12) else { preconditionFailure("null") }
        return pointer
    }

    @Test func keepsBuffersFromSixtyFourKibibytesToEightMebibytes() {
        var pool = JSONBufferPool()
        let small = pool.keep(Self.fake(1), size: (64 << 10) - 1)
        let large = pool.keep(Self.fake(2), size: (8 << 20) + 1)
        let smallest = pool.keep(Self.fake(3), size: 64 << 10)
        let largest = pool.keep(Self.fake(4), size: 8 << 20)
        #expect(!small, "a smaller buffer the allocator reuses by itself")
        #expect(!large, "a larger one is not worth holding")
        #expect(smallest && largest)
        #expect(pool.total == (64 << 10) + (8 << 20))
        #expect(pool.buffers.map(\.pointer) == [Self.fake(3), Self.fake(4)])
    }

    @Test func holdsSixteenMebibytesAtMost() {
        var pool = JSONBufferPool()
        let first = pool.keep(Self.fake(1), size: 8 << 20)
        let second = pool.keep(Self.fake(2), size: 8 << 20)
        let third = pool.keep(Self.fake(3), size: 64 << 10)
        #expect(first && second)
        #expect(!third, "full: the caller frees it")
        #expect(pool.total == 16 << 20)
        let taken = pool.take(8 << 20)
        #expect(taken?.pointer == Self.fake(1))
        let again = pool.keep(Self.fake(3), size: 64 << 10)
        #expect(again, "room again once one is taken")
    }

    @Test func handsOutTheSmallestBufferThatFitsAndIsNotMoreThanTwiceTheNeed() {
        var pool = JSONBufferPool()
        for (number, size) in [(1, 400_000), (2, 200_000), (3, 1_000_000)] {
            let kept = pool.keep(Self.fake(number), size: size)
            #expect(kept)
        }
        let tooLarge = pool.take(1_000_001)
        #expect(tooLarge == nil, "none is large enough")
        let tooSmall = pool.take(90_000)
        #expect(tooSmall == nil, "each is more than twice the need")
        let smallest = pool.take(150_000)
        #expect(smallest?.pointer == Self.fake(2))
        #expect(smallest?.size == 200_000)
        let notTwice = pool.take(150_000)
        #expect(notTwice == nil, "400,000 bytes is more than twice 150,000")
        let middle = pool.take(300_000)
        #expect(middle?.pointer == Self.fake(1))
        let largest = pool.take(600_000)
        #expect(largest?.pointer == Self.fake(3))
        #expect(pool.buffers.isEmpty && pool.total == 0)
    }

    /// Documents parsed one after another into reused buffers: each reads its own bytes, and a shorter document cut
    /// short is still found cut short, though the buffer held a longer, complete one before.
    @Test func reusedBuffersHoldNothingOfTheirLastDocument() throws {
        let a = "\"" + String(repeating: "a", count: 94) + "\""
        let b = "\"" + String(repeating: "b", count: 94) + "\""
        let long = "[" + Array(repeating: a, count: 1_500).joined(separator: ",") + "]"
        let cut = "[" + Array(repeating: b, count: 1_400).joined(separator: ",") + ",\""
        for _ in 0..<20 {
            let document = try JSON(parsing: Data(long.utf8))
            #expect(document.elements?.count == 1_500)
            #expect(document[1_499]?.string == String(repeating: "a", count: 94))
            let error = try #require(throws: JSONError.self) { try JSON(parsing: Data(cut.utf8)) }
            #expect(error.code == .unexpectedEnd)
            #expect(error.offset == cut.utf8.count)
        }
    }
}
