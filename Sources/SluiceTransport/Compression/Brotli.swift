import CSluiceSystem

/// The system's brotli decoder, loaded at run time (`libbrotlidec.so.1`), for the `br` content coding.
///
/// Every symbol is looked up and checked once, at load; `@unchecked Sendable`: every property is a constant, and the
/// decoder's functions may be called from any thread on distinct instances.
final class BrotliDecoderLibrary: @unchecked Sendable {
    /// The library, or why it could not be loaded; loaded on first use.
    static let shared: Result<BrotliDecoderLibrary, SystemLibraryUnavailable> = load()

    let createInstance: SluiceBrotliDecoderCreateInstance
    let destroyInstance: SluiceBrotliDecoderDestroyInstance
    let decompressStream: SluiceBrotliDecoderDecompressStream
    let errorCode: SluiceBrotliDecoderGetErrorCode
    let errorString: SluiceBrotliDecoderErrorString

    private init(_ handle: UnsafeMutableRawPointer) throws(SystemLibraryUnavailable) {
        var lookup = SymbolLookup(library: "libbrotlidec.so.1")
        createInstance = lookup.find("BrotliDecoderCreateInstance", in: handle)
        destroyInstance = lookup.find("BrotliDecoderDestroyInstance", in: handle)
        decompressStream = lookup.find("BrotliDecoderDecompressStream", in: handle)
        errorCode = lookup.find("BrotliDecoderGetErrorCode", in: handle)
        errorString = lookup.find("BrotliDecoderErrorString", in: handle)
        try lookup.check(as: "brotli decoder")
    }

    private static func load() -> Result<BrotliDecoderLibrary, SystemLibraryUnavailable> {
        do throws(SystemLibraryUnavailable) {
            return .success(
                try BrotliDecoderLibrary(try SystemLibrary.open("libbrotlidec.so.1", as: "brotli decoder").get())
            )
        } catch {
            return .failure(error)
        }
    }
}

/// The `br` content coding (RFC 7932), decoded by the system's brotli decoder.
///
/// The decoder's window is at most 16 MiB, as the format allows; the large-window extension is left off, as HTTP
/// requires. The format has no checksum: a corrupt stream is caught only where it breaks the format.
final class BrotliCodec: ContentCodec {
    private let library: BrotliDecoderLibrary
    private let decoder: OpaquePointer
    private var ended = false

    /// Makes a codec.
    ///
    /// - Parameter library: The loaded library.
    /// - Throws: ``ContentCodecFailure`` when the decoder could not be made (out of memory).
    init(library: BrotliDecoderLibrary) throws(ContentCodecFailure) {
        self.library = library
        guard let decoder = library.createInstance(nil, nil, nil) else {
            throw ContentCodecFailure(message: "the brotli decoder could not be made")
        }
        self.decoder = decoder
    }

    deinit {
        library.destroyInstance(decoder)
    }

    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentCodecFailure) -> ContentCodecStep {
        if ended {
            guard input.isEmpty else { throw ContentCodecFailure(message: "bytes follow the end of the stream") }
            return ContentCodecStep(consumed: 0, produced: 0, ended: true)
        }
        var availableIn = input.count
        var nextIn = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var availableOut = output.count
        var nextOut = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let result = library.decompressStream(decoder, &availableIn, &nextIn, &availableOut, &nextOut, nil)
        let consumed = input.count - availableIn
        let produced = output.count - availableOut
        switch result {
        case Int32(SLUICE_BROTLI_DECODER_RESULT_SUCCESS):
            // Input left over fails on the next step, once what this one produced is counted.
            ended = true
            return ContentCodecStep(consumed: consumed, produced: produced, ended: true)
        case Int32(SLUICE_BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT),
            Int32(SLUICE_BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT):
            return ContentCodecStep(consumed: consumed, produced: produced, ended: false)
        default:
            let code = library.errorCode(decoder)
            let name = library.errorString(code).map { String(cString: $0) } ?? "error \(code)"
            throw ContentCodecFailure(message: "invalid brotli stream (\(name))", consumed: consumed)
        }
    }
}
