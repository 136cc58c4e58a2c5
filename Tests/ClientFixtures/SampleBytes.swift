package import Foundation
import SluiceTesting
import TestSupport

/// Reproducible bytes that repeat only every 65,521 bytes, so that a byte in the wrong place shows.
package func sampleBytes(_ count: Int, seed: UInt64 = 0xD0_0D1E) -> Data {
    var generator = SplitMix64(seed: seed)
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        // A block of 65,521 random bytes (a prime, so that no power-of-two chunking lines up with it), then copies of
        // it. Generated word by word, 16 MiB took seconds under a sanitizer and held up every other test waiting for
        // a thread of the pool.
        let block = min(65_521, count)
        for offset in stride(from: 0, to: block, by: 8) {
            let word = generator.next().littleEndian
            withUnsafeBytes(of: word) { word in
                UnsafeMutableRawBufferPointer(start: base + offset, count: min(8, block - offset))
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: word.prefix(block - offset)))
            }
        }
        buffer.repeatPrefix(block)
    }
    return data
}
