import CSluiceSystem

/// The system's zlib, loaded at run time (`libz.so.1`), for the `gzip` and `deflate` content codings and WebSocket's
/// `permessage-deflate`.
///
/// Every symbol is looked up and checked once, at load; `@unchecked Sendable`: every property is a constant, and
/// zlib's functions may be called from any thread on distinct streams.
final class ZLib: @unchecked Sendable {
    /// The library, or why it could not be loaded; loaded on first use.
    static let shared: Result<ZLib, SystemLibraryUnavailable> = load()

    let version: SluiceZlibVersion
    let inflateInit2: SluiceInflateInit2
    let inflate: SluiceInflate
    let inflateReset: SluiceInflateReset
    let inflateEnd: SluiceInflateEnd
    let deflateInit2: SluiceDeflateInit2
    let deflate: SluiceDeflate
    let deflateReset: SluiceDeflateReset
    let deflateEnd: SluiceDeflateEnd

    private init(_ handle: UnsafeMutableRawPointer) throws(SystemLibraryUnavailable) {
        var lookup = SymbolLookup(library: "libz.so.1")
        version = lookup.find("zlibVersion", in: handle)
        inflateInit2 = lookup.find("inflateInit2_", in: handle)
        inflate = lookup.find("inflate", in: handle)
        inflateReset = lookup.find("inflateReset", in: handle)
        inflateEnd = lookup.find("inflateEnd", in: handle)
        deflateInit2 = lookup.find("deflateInit2_", in: handle)
        deflate = lookup.find("deflate", in: handle)
        deflateReset = lookup.find("deflateReset", in: handle)
        deflateEnd = lookup.find("deflateEnd", in: handle)
        try lookup.check(as: "zlib")
    }

    private static func load() -> Result<ZLib, SystemLibraryUnavailable> {
        do throws(SystemLibraryUnavailable) {
            return .success(try ZLib(try SystemLibrary.open("libz.so.1", as: "zlib").get()))
        } catch {
            return .failure(error)
        }
    }
}

/// The `gzip` and `deflate` content codings, decoded by zlib's `inflate`.
///
/// `gzip` may hold several members one after another, as `gzip` writes when files are concatenated; each is decoded
/// in turn. `deflate` is the zlib format (RFC 1950) as RFC 9110 defines it, but some servers send raw deflate (RFC
/// 1951) under that name, and browsers accept both: so does this codec, telling them apart by the first two bytes,
/// which in the zlib format name the deflate method and carry a check that raw deflate passes only by chance.
final class InflateCodec: ContentCodec {
    /// The format of the stream.
    enum Format {
        /// `gzip`: one or more gzip members.
        case gzip
        /// `deflate`: the zlib format, or raw deflate.
        case deflate
    }

    private let zlib: ZLib
    private let format: Format
    private var stream = SluiceZStream()
    private var initialized = false
    /// The first bytes of a `deflate` stream, held until there are two to tell the zlib format from raw deflate.
    private var header: [UInt8] = []
    private var ended = false

    /// Makes a codec.
    ///
    /// - Parameters:
    ///   - zlib: The loaded library.
    ///   - format: The coding's format.
    /// - Throws: ``ContentCodecFailure`` when zlib could not set up a stream (it is out of memory).
    init(zlib: ZLib, format: Format) throws(ContentCodecFailure) {
        self.zlib = zlib
        self.format = format
        if format == .gzip {
            // 15 bits of window, plus 16: the gzip wrapper only.
            try start(windowBits: 15 + 16)
        }
    }

    deinit {
        if initialized {
            _ = zlib.inflateEnd(&stream)
        }
    }

    private func start(windowBits: Int32) throws(ContentCodecFailure) {
        let result = zlib.inflateInit2(&stream, windowBits, zlib.version(), Int32(MemoryLayout<SluiceZStream>.size))
        guard result == Int32(SLUICE_Z_OK) else {
            throw ContentCodecFailure(message: "zlib could not start a stream (error \(result))")
        }
        initialized = true
    }

    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentCodecFailure) -> ContentCodecStep {
        var consumed = 0
        var produced = 0
        if !initialized {
            let taken = min(2 - header.count, input.count)
            header.append(contentsOf: input[0..<taken])
            consumed = taken
            guard header.count == 2 else { return ContentCodecStep(consumed: consumed, produced: 0, ended: false) }
            let isZlib =
                header[0] & 0x0F == 8 && header[0] >> 4 <= 7 && (Int(header[0]) << 8 | Int(header[1])) % 31 == 0
            // 15 bits of window; negative for raw deflate, without a wrapper.
            try start(windowBits: isZlib ? 15 : -15)
        }
        if !header.isEmpty {
            let step = try header.withUnsafeBytes { bytes in
                Result { () throws(ContentCodecFailure) in try inflate(bytes, into: output) }
            }.get()
            header.removeFirst(step.consumed)
            produced = step.produced
            guard header.isEmpty else {
                return ContentCodecStep(consumed: consumed, produced: produced, ended: step.ended)
            }
        }
        let step = try inflate(
            UnsafeRawBufferPointer(rebasing: input[consumed...]),
            into: UnsafeMutableRawBufferPointer(rebasing: output[produced...])
        )
        return ContentCodecStep(
            consumed: consumed + step.consumed,
            produced: produced + step.produced,
            ended: step.ended
        )
    }

    /// One call of `inflate`, and the start of the next gzip member after the end of one.
    private func inflate(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentCodecFailure) -> ContentCodecStep {
        if ended {
            guard !input.isEmpty else { return ContentCodecStep(consumed: 0, produced: 0, ended: true) }
            guard format == .gzip, input[0] == 0x1F else {
                throw ContentCodecFailure(message: "bytes follow the end of the stream")
            }
            _ = zlib.inflateReset(&stream)
            ended = false
        }
        guard output.count > 0 else { return ContentCodecStep(consumed: 0, produced: 0, ended: false) }
        let inputCount = UInt32(clamping: input.count)
        let outputCount = UInt32(clamping: output.count)
        stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_in = inputCount
        stream.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        stream.avail_out = outputCount
        let result = zlib.inflate(&stream, Int32(SLUICE_Z_NO_FLUSH))
        let consumed = Int(inputCount - stream.avail_in)
        let produced = Int(outputCount - stream.avail_out)
        stream.next_in = nil
        stream.next_out = nil
        switch Int(result) {
        case SLUICE_Z_OK:
            return ContentCodecStep(consumed: consumed, produced: produced, ended: false)
        case SLUICE_Z_BUF_ERROR:
            // No progress was possible: more input is needed.
            return ContentCodecStep(consumed: consumed, produced: produced, ended: false)
        case SLUICE_Z_STREAM_END:
            ended = true
            return ContentCodecStep(consumed: consumed, produced: produced, ended: true)
        case SLUICE_Z_NEED_DICT:
            throw ContentCodecFailure(
                message: "the stream needs a preset dictionary, which HTTP does not provide",
                consumed: consumed
            )
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
            throw ContentCodecFailure(message: message, consumed: consumed)
        }
    }
}
