import Foundation

/// What a response's body is decoded to, as the performer asked: the limits decoding holds the body to.
///
/// An exchange carries one when the performer sent its own `Accept-Encoding`; the connection then decodes a body whose
/// `Content-Encoding` lists only codings this process decodes.
package struct ContentDecoding: Sendable {
    /// The most decoded bytes, for a buffered body; `nil` for a streamed one, which its reader limits.
    var maximumSize: Int?
    /// The most decoded bytes for each encoded byte, once more than ``ContentDecoder/ratioFloor`` are decoded; `nil`
    /// for no bound.
    var maximumRatio: Int?

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maximumSize: The most decoded bytes, or `nil` for no limit.
    ///   - maximumRatio: The most decoded bytes for each encoded byte, or `nil` for no bound.
    package init(maximumSize: Int? = nil, maximumRatio: Int?) {
        self.maximumSize = maximumSize
        self.maximumRatio = maximumRatio
    }

    /// The codings a response's head says were applied, when the body is to be decoded.
    ///
    /// - Parameter fields: The head's fields; every `Content-Encoding` field counts, in order.
    /// - Returns: The codings in the order they were applied, or `nil` to hand the body over as sent.
    func codings(in fields: [(name: String, value: String)]) -> [ContentCoding]? {
        let values = fields.filter { Header.namesMatch($0.name, "Content-Encoding") }
        guard !values.isEmpty else { return nil }
        return ContentCoding.applied(in: values.map(\.value).joined(separator: ","))
    }
}

/// Decodes a body's content codings as its bytes arrive, into chunks of at most ``chunkSize`` bytes, and fails it with
/// a ``SluiceError`` when it is corrupt, cut short, larger than its limit, or expands more than its ratio allows.
///
/// Stacked codings (`Content-Encoding: gzip, br`) are undone in the reverse order of their listing, at most
/// ``ContentCoding/maximumStack`` of them. Memory stays bounded: each coding's window (32 KiB for zlib, at most 16 MiB
/// for brotli, 8 MiB for zstd), one chunk of output, and the input not yet consumed.
///
/// Not `Sendable`: one reader, or the connection's loop, uses it at a time.
package final class ContentDecoder {
    /// The most bytes a chunk of output holds.
    package static let chunkSize = 64 << 10
    /// The decoded bytes that are never refused for their ratio: a small body of repetitive text may compress beyond
    /// any sensible bound, and holding it costs nothing.
    package static let ratioFloor = 64 << 10

    /// Whether decoded bytes pass a ratio bound, as a decompression bomb's do.
    ///
    /// They pass it when there are more than ``ratioFloor`` of them, and at least `ratio` for each byte received. The
    /// one test of a bomb, for content codings and `permessage-deflate` alike.
    ///
    /// - Parameters:
    ///   - ratio: The most decoded bytes for each encoded byte, or `nil` for no bound.
    ///   - decoded: The decoded bytes so far.
    ///   - received: The encoded bytes they came from.
    /// - Returns: Whether to refuse the rest.
    package static func exceedsRatio(_ ratio: Int?, decoded: Int, received: Int) -> Bool {
        guard let ratio else { return false }
        return decoded > ratioFloor && decoded / max(1, ratio) >= max(1, received)
    }

    /// The codings, as applied.
    let codings: [ContentCoding]
    private let limits: ContentDecoding
    /// The codings' decoders, in the order they are undone: the last applied first.
    private var layers: [Layer]
    /// Room for one chunk of output.
    private let scratch: UnsafeMutableRawBufferPointer
    /// The decoded bytes handed out.
    private(set) var bytesOut = 0

    /// One coding's decoder, and the input it has not consumed yet.
    private struct Layer {
        let coding: ContentCoding
        let codec: any ContentCodec
        var input = Data()
        var offset = 0
        /// The input bytes it has consumed.
        var consumed = 0
        var received = false
        var ended = false

        mutating func feed(_ bytes: Data) {
            guard !bytes.isEmpty else { return }
            received = true
            if offset == input.count {
                input = bytes
            } else {
                input = Data(input[offset...]) + bytes
            }
            offset = 0
        }
    }

    /// Makes a decoder for the codings a body was encoded with.
    ///
    /// - Parameters:
    ///   - codings: The codings, in the order they were applied, as `Content-Encoding` lists them.
    ///   - limits: The size limit and ratio bound.
    /// - Throws: ``SluiceError`` when more codings are stacked than are decoded, or a decoder could not be set up.
    package init(codings: [ContentCoding], limits: ContentDecoding) throws(SluiceError) {
        self.codings = codings
        self.limits = limits
        guard codings.count <= ContentCoding.maximumStack else {
            throw SluiceError(
                .transport,
                message:
                    "the response body has \(codings.count) content codings (\(codings.map(\.name).joined(separator: ", "))), more than the \(ContentCoding.maximumStack) the transport decodes",
                underlyingError: URLError(.cannotDecodeContentData)
            )
        }
        var layers: [Layer] = []
        for coding in codings.reversed() {
            do throws(ContentCodecFailure) {
                layers.append(Layer(coding: coding, codec: try coding.makeCodec()))
            } catch {
                throw SluiceError(
                    .transport,
                    message: "the response body's \(coding) coding could not be decoded: \(error.message)",
                    underlyingError: URLError(.cannotDecodeContentData)
                )
            }
        }
        self.layers = layers
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        scratch.deallocate()
    }

    /// The encoded bytes the decoder has consumed.
    var bytesIn: Int { layers.first?.consumed ?? 0 }

    /// The encoded bytes fed so far: those consumed, and those a codec left for more to come (such as the first bytes
    /// of a zstd frame's magic number).
    private var bytesFed: Int { layers.first.map { $0.consumed + $0.input.count - $0.offset } ?? 0 }

    /// Takes the next piece of the body as it came; call ``next()`` until it returns `nil` before the next piece.
    ///
    /// - Parameter bytes: Encoded bytes.
    package func feed(_ bytes: Data) {
        layers[0].feed(bytes)
    }

    /// The next chunk of decoded bytes, or `nil` when the decoder needs more of the body.
    ///
    /// - Returns: At most ``chunkSize`` bytes, never empty; `nil` when all that was fed is decoded.
    /// - Throws: ``SluiceError`` when the body is corrupt, or passes the size limit or the ratio bound.
    package func next() throws(SluiceError) -> Data? {
        guard let chunk = try pull(layers.count - 1) else { return nil }
        bytesOut += chunk.count
        if let limit = limits.maximumSize, bytesOut > limit {
            throw SluiceError(
                .transport,
                message:
                    "the response body is more than \(limit) bytes once its \(codingsName) coding is decoded (from \(bytesIn) bytes received), more than the limit of \(limit) bytes"
            )
        }
        if let ratio = limits.maximumRatio, Self.exceedsRatio(ratio, decoded: bytesOut, received: bytesIn) {
            throw SluiceError(
                .transport,
                message:
                    "the response body's \(codingsName) coding expands more than \(ratio) times, a likely decompression bomb: \(bytesOut) bytes decoded from \(bytesIn) bytes received; the bound is the performer's maximumDecompressionRatio",
                underlyingError: URLError(.cannotDecodeContentData)
            )
        }
        return chunk
    }

    /// Checks, at the end of the body, that every coding's stream ended: all that was fed must have been taken with
    /// ``next()`` first.
    ///
    /// A body of no bytes at all decodes to nothing, whatever its `Content-Encoding` says, as a `HEAD` response's or a
    /// `304`'s.
    ///
    /// - Throws: ``SluiceError`` when a stream was cut short.
    package func finish() throws(SluiceError) {
        for layer in layers where layer.received && !layer.ended {
            throw SluiceError(
                .transport,
                message:
                    "the response body's \(name(of: layer)) coding ends early: the body ended after \(bytesFed) bytes received and \(bytesOut) decoded, before the end of its \(layer.coding) stream",
                underlyingError: URLError(.cannotDecodeContentData)
            )
        }
    }

    /// The codings as `Content-Encoding` lists them, such as `gzip` or `gzip, br`.
    private var codingsName: String { codings.map(\.name).joined(separator: ", ") }

    /// A layer's coding as messages name it: its name alone, or within the stack when codings are stacked.
    private func name(of layer: Layer) -> String {
        codings.count == 1 ? layer.coding.name : "\(layer.coding.name) (of \(codingsName))"
    }

    /// The next chunk decoded by a layer, pulling input from the layers before it as it needs.
    private func pull(_ index: Int) throws(SluiceError) -> Data? {
        while true {
            if let chunk = try produce(index) {
                return chunk
            }
            guard index > 0, let input = try pull(index - 1) else { return nil }
            layers[index].feed(input)
        }
    }

    /// Decodes what a layer holds into one chunk, as far as the chunk goes.
    private func produce(_ index: Int) throws(SluiceError) -> Data? {
        var filled = 0
        var layer = layers[index]
        defer { layers[index] = layer }
        while filled < scratch.count {
            let step: ContentCodecStep
            do throws(ContentCodecFailure) {
                let (codec, offset, output) = (layer.codec, layer.offset, scratch[filled...])
                step = try layer.input.withUnsafeBytes { bytes in
                    Result { () throws(ContentCodecFailure) in
                        try codec.decode(
                            UnsafeRawBufferPointer(rebasing: bytes[offset...]),
                            into: UnsafeMutableRawBufferPointer(rebasing: output)
                        )
                    }
                }.get()
            } catch {
                let position = layer.consumed + error.consumed
                let source = index == 0 ? "of the body as received" : "of what its outer coding decoded"
                let received = index == 0 ? position : bytesIn
                let decoded = bytesOut + (index == layers.count - 1 ? filled : 0)
                throw SluiceError(
                    .transport,
                    message:
                        "the response body's \(name(of: layer)) coding is corrupt at byte \(position) \(source): \(error.message) (\(received) bytes received, \(decoded) decoded)",
                    underlyingError: URLError(.cannotDecodeContentData)
                )
            }
            layer.offset += step.consumed
            layer.consumed += step.consumed
            layer.ended = step.ended
            filled += step.produced
            if step.consumed == 0 && step.produced == 0 {
                break
            }
        }
        if layer.offset == layer.input.count, layer.offset > 0 {
            layer.input = Data()
            layer.offset = 0
        }
        return filled == 0 ? nil : Data(UnsafeRawBufferPointer(rebasing: scratch[0..<filled]))
    }
}
