public import Foundation

// dlopen and dlsym come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Compresses test bodies with the system's own encoders, loaded as the transport loads its decoders.
///
/// zlib's `compress2` (and from its output, raw deflate and gzip), brotli's `BrotliEncoderCompress` from
/// `libbrotlienc.so.1`, and `ZSTD_compress`. Each returns `nil` where its library is missing.
public enum TestCompressor {
    private typealias Compress2 =
        @convention(c) (
            UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt>, UnsafePointer<UInt8>, UInt, Int32
        ) -> Int32
    private typealias CompressBound = @convention(c) (UInt) -> UInt
    private typealias CRC32 = @convention(c) (UInt, UnsafePointer<UInt8>?, UInt32) -> UInt
    private typealias BrotliCompress =
        @convention(c) (
            Int32, Int32, Int32, Int, UnsafePointer<UInt8>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<UInt8>
        ) -> Int32
    private typealias BrotliBound = @convention(c) (Int) -> Int
    private typealias ZstdCompress = @convention(c) (UnsafeMutableRawPointer, Int, UnsafeRawPointer, Int, Int32) -> Int
    private typealias ZstdBound = @convention(c) (Int) -> Int

    /// A function of a library, or `nil`.
    private static func function<Function>(_ name: String, in library: String, as type: Function.Type) -> Function? {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL), let symbol = dlsym(handle, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }

    /// The zlib format (RFC 1950), as `deflate` means.
    public static func zlib(_ data: Data, level: Int32 = 6) -> Data? {
        guard let compress = function("compress2", in: "libz.so.1", as: Compress2.self),
            let bound = function("compressBound", in: "libz.so.1", as: CompressBound.self)
        else { return nil }
        var length = bound(UInt(data.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let input = [UInt8](data)
        let result = compress(&output, &length, input, UInt(input.count), level)
        return result == 0 ? Data(output[0..<Int(length)]) : nil
    }

    /// Raw deflate (RFC 1951), as some servers send for `deflate`: the zlib format without its 2-byte header and
    /// 4-byte check.
    public static func rawDeflate(_ data: Data) -> Data? {
        zlib(data).map { Data($0.dropFirst(2).dropLast(4)) }
    }

    /// One gzip member (RFC 1952): a header, raw deflate, the CRC-32 and the length.
    public static func gzip(_ data: Data) -> Data? {
        guard let deflated = rawDeflate(data), let crc32 = function("crc32", in: "libz.so.1", as: CRC32.self) else {
            return nil
        }
        let input = [UInt8](data)
        let checksum = crc32(0, input, UInt32(input.count))
        var member = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        member.append(deflated)
        for value in [UInt32(truncatingIfNeeded: checksum), UInt32(truncatingIfNeeded: data.count)] {
            withUnsafeBytes(of: value.littleEndian) { member.append(contentsOf: $0) }
        }
        return member
    }

    /// Brotli (RFC 7932).
    public static func brotli(_ data: Data, quality: Int32 = 5) -> Data? {
        guard let compress = function("BrotliEncoderCompress", in: "libbrotlienc.so.1", as: BrotliCompress.self),
            let bound = function("BrotliEncoderMaxCompressedSize", in: "libbrotlienc.so.1", as: BrotliBound.self)
        else { return nil }
        var length = max(bound(data.count), 1_024)
        var output = [UInt8](repeating: 0, count: length)
        let input = [UInt8](data)
        // 22 bits of window, the encoder's default; mode 0 is generic.
        let done = compress(quality, 22, 0, input.count, input, &length, &output)
        return done == 1 ? Data(output[0..<length]) : nil
    }

    /// Zstandard (RFC 8878).
    public static func zstd(_ data: Data, level: Int32 = 3) -> Data? {
        guard let compress = function("ZSTD_compress", in: "libzstd.so.1", as: ZstdCompress.self),
            let bound = function("ZSTD_compressBound", in: "libzstd.so.1", as: ZstdBound.self)
        else { return nil }
        var output = [UInt8](repeating: 0, count: bound(data.count))
        let input = [UInt8](data)
        let capacity = output.count
        let length = compress(&output, capacity, input, input.count, level)
        // zstd's errors are the largest values of size_t, far beyond the capacity.
        return length <= capacity ? Data(output[0..<length]) : nil
    }
}
