import Foundation

/// A content coding the transport decodes (RFC 9110, section 8.4.1): `gzip`, `deflate`, `br` or `zstd`, each where
/// the system library that decodes it could be loaded.
package struct ContentCoding: Hashable, Sendable, CustomStringConvertible {
    /// The coding's token, as `Accept-Encoding` and `Content-Encoding` spell it.
    package let name: String

    /// `gzip`, decoded by zlib; `x-gzip` names it too.
    package static let gzip = ContentCoding(name: "gzip")
    /// `deflate`: the zlib format, or raw deflate as some servers send; decoded by zlib.
    package static let deflate = ContentCoding(name: "deflate")
    /// `br`: brotli, decoded by libbrotlidec.
    package static let brotli = ContentCoding(name: "br")
    /// `zstd`: Zstandard, decoded by libzstd.
    package static let zstd = ContentCoding(name: "zstd")

    /// Every coding the transport knows, in the order `Accept-Encoding` lists them.
    package static let all: [ContentCoding] = [.gzip, .deflate, .brotli, .zstd]

    package var description: String { name }

    /// Why this process cannot decode the coding, or `nil` when it can: its library could not be loaded.
    var unavailableReason: String? {
        switch self {
        case .gzip, .deflate: ZLib.shared.failure?.description
        case .brotli: BrotliDecoderLibrary.shared.failure?.description
        default: Zstd.shared.failure?.description
        }
    }

    /// The codings this process decodes, in the order `Accept-Encoding` lists them.
    package static let available: [ContentCoding] = all.filter { $0.unavailableReason == nil }

    /// The value of `Accept-Encoding` for what this process decodes, such as `gzip, deflate, br, zstd`; `nil` when it
    /// decodes nothing.
    static let acceptEncoding: String? =
        available.isEmpty ? nil : available.map(\.name).joined(separator: ", ")

    /// The most codings stacked on one body that are decoded; each holds a window of its own (up to 16 MiB for `br`).
    static let maximumStack = 3

    /// The codings a `Content-Encoding` value lists, when this process decodes every one.
    ///
    /// `identity` is skipped, and `x-gzip` read as `gzip`.
    ///
    /// - Parameter value: The field's value, such as `gzip` or `gzip, br`; several fields joined with commas.
    /// - Returns: The codings in the order they were applied; `nil` when the value is empty or only `identity`, or
    ///   names a coding this process does not decode: the body is then handed over as sent.
    package static func applied(in value: String) -> [ContentCoding]? {
        var codings: [ContentCoding] = []
        for token in FieldList.elements(of: value) {
            let name = Header.asciiLowercased(String(token))
            switch name {
            case "identity":
                continue
            case "x-gzip":
                codings.append(.gzip)
            default:
                guard let coding = available.first(where: { $0.name == name }) else { return nil }
                codings.append(coding)
            }
        }
        return codings.isEmpty ? nil : codings
    }

    /// A new decoder of this coding.
    ///
    /// - Throws: ``ContentCodecFailure`` when the library could not set one up, or is not loaded.
    func makeCodec() throws(ContentCodecFailure) -> any ContentCodec {
        switch self {
        case .gzip: try InflateCodec(zlib: try Self.loaded(ZLib.shared), format: .gzip)
        case .deflate: try InflateCodec(zlib: try Self.loaded(ZLib.shared), format: .deflate)
        case .brotli: try BrotliCodec(library: try Self.loaded(BrotliDecoderLibrary.shared))
        default: try ZstdCodec(library: try Self.loaded(Zstd.shared))
        }
    }

    private static func loaded<Library>(
        _ library: Result<Library, SystemLibraryUnavailable>
    ) throws(ContentCodecFailure) -> Library {
        switch library {
        case .success(let library): return library
        case .failure(let error): throw ContentCodecFailure(message: error.description)
        }
    }
}

extension Result {
    /// The error, when the result is one.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
