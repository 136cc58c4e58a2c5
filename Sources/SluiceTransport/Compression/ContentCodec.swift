/// A decompressor of one content coding, over a system library's streaming interface: it decodes as much of its input
/// as fits in the output it is given, and keeps the rest of its state (a window of at most a few MiB) to itself.
///
/// A class, since it owns the library's state and frees it when released. Used by one reader at a time.
protocol ContentCodec: AnyObject {
    /// Decodes from `input` into `output`, as far as either goes.
    ///
    /// Called with empty input, it hands out what it still holds. A step that consumes and produces nothing needs
    /// more input.
    ///
    /// - Parameters:
    ///   - input: Encoded bytes; those not consumed are passed again.
    ///   - output: Room for decoded bytes, never empty.
    /// - Returns: How many bytes were consumed and produced, and whether the coding's stream has ended.
    /// - Throws: ``ContentCodecFailure`` when the stream is corrupt.
    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentCodecFailure) -> ContentCodecStep
}

/// What one step of a ``ContentCodec`` did.
struct ContentCodecStep {
    /// The input bytes consumed.
    var consumed: Int
    /// The output bytes produced.
    var produced: Int
    /// Whether the stream has ended: all it encodes has been produced and its checks passed.
    var ended: Bool
}

/// Why a ``ContentCodec`` could not go on.
struct ContentCodecFailure: Error {
    /// What is wrong with the stream, in the library's words where it gave some, such as `invalid block type`.
    var message: String
    /// The input bytes of the step consumed before the failure, when the library says.
    var consumed = 0
}
