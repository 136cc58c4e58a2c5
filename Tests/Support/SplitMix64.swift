/// A small, seedable pseudo-random generator, so that randomized tests are reproducible.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// Creates a generator that produces the same sequence for the same seed.
    ///
    /// - Parameter seed: The seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next pseudo-random number.
    ///
    /// - Returns: 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
