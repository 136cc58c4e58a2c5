package import Foundation
package import SluiceCore
import Testing

/// A body given as fixed chunks, in order, with a count of the chunks taken so far.
package struct Chunks: AsyncSequence, Sendable {
    package typealias Element = Data

    package let chunks: [Data]
    /// How many chunks the iterators have taken, shared by the copies of this sequence.
    package let pulled = Locked(0)

    package init(_ chunks: [Data]) {
        self.chunks = chunks
    }

    package init(_ chunks: String...) {
        self.chunks = chunks.map { Data($0.utf8) }
    }

    /// A text cut at the given byte offsets.
    ///
    /// - Parameters:
    ///   - text: The whole body.
    ///   - cuts: Offsets into the text's UTF-8 bytes, ascending, where one chunk ends and the next begins.
    package init(_ text: some Collection<UInt8>, cutAt cuts: [Int]) {
        let bytes = Array(text)
        var start = 0
        var chunks: [Data] = []
        for cut in cuts + [bytes.count] {
            chunks.append(Data(bytes[start..<cut]))
            start = cut
        }
        self.chunks = chunks
    }

    package func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks, pulled: pulled)
    }

    package struct Iterator: AsyncIteratorProtocol {
        let chunks: [Data]
        let pulled: Locked<Int>
        var index = 0

        package mutating func next() async -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            pulled.withLock { $0 += 1 }
            return chunks[index]
        }
    }
}

/// A body that never ends: chunk `n` is what `make(n)` returns, counted from 0; it counts the chunks taken.
package struct EndlessChunks: AsyncSequence, Sendable {
    package typealias Element = Data

    package let make: @Sendable (Int) -> Data
    package let pulled = Locked(0)

    package init(make: @escaping @Sendable (Int) -> Data) {
        self.make = make
    }

    package func makeAsyncIterator() -> Iterator {
        Iterator(make: make, pulled: pulled)
    }

    package struct Iterator: AsyncIteratorProtocol {
        let make: @Sendable (Int) -> Data
        let pulled: Locked<Int>

        package mutating func next() async -> Data? {
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
    package func collected() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self {
            elements.append(element)
        }
        return elements
    }
}
