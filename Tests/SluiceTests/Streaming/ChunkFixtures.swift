import Foundation
import Sluice
import Testing

/// A body given as fixed chunks, in order, with a count of the chunks taken so far.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = Data

    let chunks: [Data]
    /// How many chunks the iterators have taken, shared by the copies of this sequence.
    let pulled = Locked(0)

    init(_ chunks: [Data]) {
        self.chunks = chunks
    }

    init(_ chunks: String...) {
        self.chunks = chunks.map { Data($0.utf8) }
    }

    /// A text cut at the given byte offsets.
    ///
    /// - Parameters:
    ///   - text: The whole body.
    ///   - cuts: Offsets into the text's UTF-8 bytes, ascending, where one chunk ends and the next begins.
    init(_ text: some Collection<UInt8>, cutAt cuts: [Int]) {
        let bytes = Array(text)
        var start = 0
        var chunks: [Data] = []
        for cut in cuts + [bytes.count] {
            chunks.append(Data(bytes[start..<cut]))
            start = cut
        }
        self.chunks = chunks
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks, pulled: pulled)
    }

    struct Iterator: AsyncIteratorProtocol {
        let chunks: [Data]
        let pulled: Locked<Int>
        var index = 0

        mutating func next() async -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            pulled.withLock { $0 += 1 }
            return chunks[index]
        }
    }
}

/// A body that never ends: chunk `n` is what `make(n)` returns, counted from 0; it counts the chunks taken.
struct EndlessChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let make: @Sendable (Int) -> Data
    let pulled = Locked(0)

    func makeAsyncIterator() -> Iterator {
        Iterator(make: make, pulled: pulled)
    }

    struct Iterator: AsyncIteratorProtocol {
        let make: @Sendable (Int) -> Data
        let pulled: Locked<Int>

        mutating func next() async -> Data? {
            let index = pulled.withLock { count in
                defer { count += 1 }
                return count
            }
            return make(index)
        }
    }
}

extension AsyncSequence {
    /// Every element, in order.
    func collected() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self {
            elements.append(element)
        }
        return elements
    }
}
