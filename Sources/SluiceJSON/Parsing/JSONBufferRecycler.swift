import Foundation

/// The memory of documents that are gone, kept for the next parses.
///
/// A parse writes a copy of the bytes and a tape into memory fresh from the allocator. For a document of more than a
/// few hundred kilobytes the allocator hands back pages that the kernel must fault in and zero, which took about as
/// long as the parse itself. A client decodes one response after another, of similar sizes, so the buffers of the
/// last few documents are kept (``JSONBufferPool``) and reused.
enum JSONBufferRecycler {
    /// The buffers kept, shared by every parse in the process.
    private static let shared = Locked(JSONBufferPool())

    /// A buffer of at least `size` bytes from `malloc`, kept or new, and its size.
    static func allocate(_ size: Int) -> (pointer: UnsafeMutableRawPointer, size: Int) {
        let size = max(size, 1)
        if JSONBufferPool.keeps(size), let reused = shared.withLock({ $0.take(size) }) {
            return reused
        }
        guard let memory = malloc(size) else {
            fatalError("out of memory for a JSON document of \(size) bytes")
        }
        return (memory, size)
    }

    /// Keeps a buffer from ``allocate(_:)`` (or `malloc`) for a later parse, or frees it.
    static func release(_ pointer: UnsafeMutableRawPointer, size: Int) {
        guard JSONBufferPool.keeps(size), shared.withLock({ $0.keep(pointer, size: size) }) else {
            free(pointer)
            return
        }
    }
}

/// Buffers kept for reuse.
///
/// From ``smallest`` to ``largest`` bytes each (the allocator reuses smaller ones without faults, and a larger one
/// is not worth holding), ``capacity`` bytes in all. A buffer is handed out for a need of at least half its size, the
/// smallest that fits first, so that a small document does not hold a large buffer.
struct JSONBufferPool {
    /// The smallest buffer kept: 64 KiB.
    static let smallest = 64 << 10
    /// The largest buffer kept: 8 MiB.
    static let largest = 8 << 20
    /// The most bytes kept in all: 16 MiB.
    static let capacity = 16 << 20

    /// The buffers kept, in the order they were kept.
    private(set) var buffers: [(pointer: UnsafeMutableRawPointer, size: Int)] = []
    /// Their sizes' sum.
    private(set) var total = 0

    /// Whether a buffer of this size is one the pool would keep.
    static func keeps(_ size: Int) -> Bool {
        size >= smallest && size <= largest
    }

    /// Keeps a buffer; returns `false`, keeping nothing, when it would take the pool past its capacity or is not a
    /// size it keeps.
    mutating func keep(_ pointer: UnsafeMutableRawPointer, size: Int) -> Bool {
        guard JSONBufferPool.keeps(size), total + size <= JSONBufferPool.capacity else { return false }
        buffers.append((pointer, size))
        total += size
        return true
    }

    /// Hands out the smallest buffer kept of `size` to `2 * size` bytes, or `nil`.
    mutating func take(_ size: Int) -> (pointer: UnsafeMutableRawPointer, size: Int)? {
        var best: Int?
        for index in buffers.indices where buffers[index].size >= size && buffers[index].size <= 2 * size {
            if best.map({ buffers[index].size < buffers[$0].size }) ?? true {
                best = index
            }
        }
        guard let best else { return nil }
        let buffer = buffers.remove(at: best)
        total -= buffer.size
        return buffer
    }
}
