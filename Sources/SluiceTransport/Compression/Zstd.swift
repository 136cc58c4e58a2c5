import CSluiceSystem
import Foundation

/// The system's zstd, loaded at run time (`libzstd.so.1`, 1.4 or later), for the `zstd` content coding.
///
/// Every symbol is looked up and checked once, at load; `@unchecked Sendable`: every property is a constant, and
/// zstd's functions may be called from any thread on distinct contexts.
final class Zstd: @unchecked Sendable {
    /// The library, or why it could not be loaded; loaded on first use.
    static let shared: Result<Zstd, SystemLibraryUnavailable> = load()

    let createContext: SluiceZstdCreateDCtx
    let freeContext: SluiceZstdFreeDCtx
    let setParameter: SluiceZstdDCtxSetParameter
    let decompressStream: SluiceZstdDecompressStream
    let isError: SluiceZstdIsError
    let errorName: SluiceZstdGetErrorName

    private init(_ handle: UnsafeMutableRawPointer) throws(SystemLibraryUnavailable) {
        var lookup = SymbolLookup(library: "libzstd.so.1")
        createContext = lookup.find("ZSTD_createDCtx", in: handle)
        freeContext = lookup.find("ZSTD_freeDCtx", in: handle)
        setParameter = lookup.find("ZSTD_DCtx_setParameter", in: handle)
        decompressStream = lookup.find("ZSTD_decompressStream", in: handle)
        isError = lookup.find("ZSTD_isError", in: handle)
        errorName = lookup.find("ZSTD_getErrorName", in: handle)
        try lookup.check(as: "zstd")
    }

    private static func load() -> Result<Zstd, SystemLibraryUnavailable> {
        do throws(SystemLibraryUnavailable) {
            return .success(try Zstd(try SystemLibrary.open("libzstd.so.1", as: "zstd").get()))
        } catch {
            return .failure(error)
        }
    }

    /// The error a result code stands for, in zstd's words.
    func message(_ code: Int) -> String {
        errorName(code).map { String(cString: $0) } ?? "zstd error \(code)"
    }
}

/// The `zstd` content coding (RFC 8878), decoded by the system's zstd; several frames one after another are decoded in
/// turn.
///
/// The window is limited to 8 MiB (a window log of 23), as RFC 9659 asks of HTTP decoders: a frame that needs a larger
/// one fails, rather than making the decoder hold up to zstd's own limit of 128 MiB.
///
/// Only the frames of RFC 8878 are decoded: zstd frames and skippable frames, told by their magic numbers. libzstd also
/// decodes the formats that came before it, but only when a frame's first four bytes reach it in one call, so that the
/// same body passed or failed by where the network cut it; a frame of another magic number fails here, however cut.
final class ZstdCodec: ContentCodec {
    /// The largest window accepted, as a power of two.
    static let windowLog: Int32 = 23

    private let library: Zstd
    private let context: OpaquePointer
    /// Where the stream stands between two steps.
    private enum Position {
        /// No byte read yet: a frame must start, and the stream has not ended.
        case beforeFirstFrame
        /// Inside a frame.
        case inFrame
        /// At a frame's end, every byte of it produced: the stream may end, or another frame start.
        case afterFrame
    }

    private var position = Position.beforeFirstFrame

    /// Makes a codec.
    ///
    /// - Parameter library: The loaded library.
    /// - Throws: ``ContentCodecFailure`` when the context could not be made (out of memory).
    init(library: Zstd) throws(ContentCodecFailure) {
        self.library = library
        guard let context = library.createContext() else {
            throw ContentCodecFailure(message: "the zstd context could not be made")
        }
        self.context = context
        let result = library.setParameter(context, Int32(SLUICE_ZSTD_D_WINDOWLOGMAX), Self.windowLog)
        guard library.isError(result) == 0 else {
            _ = library.freeContext(context)
            throw ContentCodecFailure(message: "zstd refused the window limit: \(library.message(result))")
        }
    }

    deinit {
        _ = library.freeContext(context)
    }

    func decode(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(ContentCodecFailure) -> ContentCodecStep {
        if input.isEmpty && position == .afterFrame {
            return ContentCodecStep(consumed: 0, produced: 0, ended: true)
        }
        if position != .inFrame {
            // A frame starts: its magic number is checked before libzstd reads it. With too few bytes to tell,
            // consuming none asks for more, which come after these.
            guard input.count >= 4 else {
                return ContentCodecStep(consumed: 0, produced: 0, ended: false)
            }
            guard Self.isFrameMagic(input) else {
                let number = input.prefix(4).reversed().map { String(format: "%02X", $0) }.joined()
                throw ContentCodecFailure(
                    message: "a frame starts with the magic number 0x\(number), not one of RFC 8878's"
                )
            }
            position = .inFrame
        }
        var inBuffer = SluiceZstdInBuffer(src: input.baseAddress, size: input.count, pos: 0)
        var outBuffer = SluiceZstdOutBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let result = library.decompressStream(context, &outBuffer, &inBuffer)
        guard library.isError(result) == 0 else {
            throw ContentCodecFailure(message: library.message(result), consumed: inBuffer.pos)
        }
        // 0: a frame is complete and flushed, and the call stopped there; more input starts another.
        position = result == 0 ? .afterFrame : .inFrame
        return ContentCodecStep(consumed: inBuffer.pos, produced: outBuffer.pos, ended: position == .afterFrame)
    }

    /// Whether four bytes are the magic number of a zstd frame (`0xFD2FB528`) or a skippable one (`0x184D2A50` to
    /// `0x184D2A5F`), little-endian, as RFC 8878 sections 3.1.1 and 3.1.2 give them.
    private static func isFrameMagic(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let magic = (bytes[0], bytes[1], bytes[2], bytes[3])
        return magic == (0x28, 0xB5, 0x2F, 0xFD)
            || (magic.0 & 0xF0 == 0x50 && (magic.1, magic.2, magic.3) == (0x2A, 0x4D, 0x18))
    }
}
