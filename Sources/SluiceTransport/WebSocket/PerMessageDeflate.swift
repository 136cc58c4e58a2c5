import CSluiceSystem
import Foundation

/// The `permessage-deflate` extension (RFC 7692) as a server accepted it: whether each side keeps its compression
/// context from one message to the next, and the window the client compresses with.
///
/// The client offers `permessage-deflate; client_max_window_bits` (any window for its own compression, and
/// context takeover both ways), and accepts what RFC 7692 lets a server answer to that.
package struct PerMessageDeflate: Equatable, Sendable {
    /// Whether the server starts each message with a new compression context.
    package var serverNoContextTakeover = false
    /// Whether the client must start each message with a new compression context.
    package var clientNoContextTakeover = false
    /// The server's window, 8 to 15 bits.
    package var serverMaxWindowBits = 15
    /// The client's window, 8 to 15 bits.
    package var clientMaxWindowBits = 15

    /// The parameters of an answer that names none: context takeover both ways, windows of 15 bits.
    package init() {}

    /// The `Sec-WebSocket-Extensions` value the client offers.
    package static let offer = "permessage-deflate; client_max_window_bits"

    /// Reads the server's `Sec-WebSocket-Extensions` answer.
    ///
    /// - Parameter answer: The field's values, joined with commas.
    /// - Throws: A message naming what RFC 7692 does not let the server answer.
    package init(answer: String) throws(PerMessageDeflate.Refusal) {
        let extensions = FieldList.elements(of: answer, quoting: .quotedStrings)
        guard extensions.count == 1, let only = extensions.first else {
            throw Refusal(reason: "the server chose several extensions, \"\(answer)\", and only one was offered")
        }
        // Split as bytes: as characters, a Greek question mark (U+037E) would be a semicolon.
        var parameters = only.utf8.split(separator: UInt8(ascii: ";")).map { String(FieldList.trimmed(Substring($0))) }
        guard Header.asciiLowercased(parameters.removeFirst()) == "permessage-deflate" else {
            throw Refusal(reason: "the server chose the extension \"\(only)\", which the client did not offer")
        }
        var seen = Set<String>()
        for parameter in parameters {
            let parts = parameter.utf8.split(separator: UInt8(ascii: "="), maxSplits: 1).map {
                String(FieldList.trimmed(Substring($0)))
            }
            let name = Header.asciiLowercased(parts[0])
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) : nil
            guard seen.insert(name).inserted else {
                throw Refusal(reason: "permessage-deflate's parameter \(name) appears twice (RFC 7692, section 7.1)")
            }
            switch (name, value) {
            case ("server_no_context_takeover", nil): serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): clientNoContextTakeover = true
            case ("server_max_window_bits", let value?): serverMaxWindowBits = try Self.windowBits(name, value)
            case ("client_max_window_bits", let value?): clientMaxWindowBits = try Self.windowBits(name, value)
            default:
                throw Refusal(
                    reason:
                        "permessage-deflate's parameter \"\(parameter)\" is not one a server may answer (RFC 7692, section 7.1)"
                )
            }
        }
        if clientMaxWindowBits == 8 {
            // zlib widens a raw deflate window of 8 bits to 9, which would break the server's limit.
            throw Refusal(reason: "permessage-deflate's client_max_window_bits=8 cannot be honoured by zlib")
        }
    }

    private static func windowBits(_ name: String, _ value: String) throws(Refusal) -> Int {
        guard value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let bits = Int(value),
            (8...15).contains(bits), value.count <= 2
        else {
            throw Refusal(reason: "permessage-deflate's \(name)=\(value) is not 8 to 15 (RFC 7692, section 7.1)")
        }
        return bits
    }

    /// Why the server's answer cannot be taken.
    package struct Refusal: Error {
        /// What was wrong.
        package var reason: String
        /// Whether a message passed a bound on what it decompresses to (close code 1009) rather than being invalid.
        package var exceedsBound = false
    }
}

/// One direction of `permessage-deflate`: raw deflate streams, without the final `00 00 FF FF` of each message's
/// sync flush, which the receiver adds back.
final class MessageDeflateCodec {
    private let zlib: ZLib
    private var stream = SluiceZStream()
    private let compresses: Bool
    private let resetsEachMessage: Bool
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    /// The four bytes a sync flush ends with.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Starts a compressor or a decompressor.
    ///
    /// - Parameters:
    ///   - zlib: The loaded library.
    ///   - compresses: Whether it compresses (the client's messages) or decompresses (the server's).
    ///   - windowBits: The window, 9 to 15 bits.
    ///   - resetsEachMessage: Whether each message starts a new context (no context takeover).
    /// - Throws: ``SluiceError`` when zlib could not start a stream (it is out of memory).
    init(zlib: ZLib, compresses: Bool, windowBits: Int, resetsEachMessage: Bool) throws(SluiceError) {
        self.zlib = zlib
        self.compresses = compresses
        self.resetsEachMessage = resetsEachMessage
        let size = Int32(MemoryLayout<SluiceZStream>.size)
        let result =
            compresses
            ? zlib.deflateInit2(
                &stream,
                Int32(SLUICE_Z_DEFAULT_COMPRESSION),
                Int32(SLUICE_Z_DEFLATED),
                -Int32(windowBits),
                8,
                Int32(SLUICE_Z_DEFAULT_STRATEGY),
                zlib.version(),
                size
            )
            : zlib.inflateInit2(&stream, -15, zlib.version(), size)
        guard result == Int32(SLUICE_Z_OK) else {
            throw SluiceError(.frame, message: "zlib could not start a permessage-deflate stream (error \(result))")
        }
    }

    deinit {
        _ = compresses ? zlib.deflateEnd(&stream) : zlib.inflateEnd(&stream)
    }

    /// Compresses a message's payload.
    func compress(_ payload: some ContiguousBytes) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(payload.withUnsafeBytes(\.count) / 2 + 64)
        _ = run(payload, flush: Int32(SLUICE_Z_SYNC_FLUSH), bound: nil, into: &output)
        if output.suffix(4).elementsEqual(Self.tail) {
            output.removeLast(4)
        }
        if output.isEmpty {
            // Nothing was left to flush (an empty message after another): an empty stored block's first byte, as
            // RFC 7692 section 7.2.3.6 writes an empty message.
            output = [0x00]
        }
        if resetsEachMessage {
            _ = zlib.deflateReset(&stream)
        }
        return output
    }

    /// Decompresses a message's payload.
    ///
    /// - Parameters:
    ///   - payload: The compressed bytes.
    ///   - limit: The most bytes it may decompress to.
    ///   - maximumRatio: The most bytes it may decompress to for each compressed byte, once past
    ///     ``ContentDecoder/ratioFloor``, or `nil` for no bound.
    /// - Returns: The message.
    /// - Throws: A ``PerMessageDeflate/Refusal`` when the bytes are not deflate or pass the limit or the ratio.
    func decompress(_ payload: Data, limit: Int, maximumRatio: Int?) throws(PerMessageDeflate.Refusal) -> Data {
        var output: [UInt8] = []
        let input = Array(payload) + Self.tail
        let bound = Bound(size: limit, ratio: maximumRatio, received: payload.count)
        if let failure = run(input, flush: Int32(SLUICE_Z_SYNC_FLUSH), bound: bound, into: &output) {
            throw failure
        }
        if resetsEachMessage {
            _ = zlib.inflateReset(&stream)
        }
        return Data(output)
    }

    /// What a message may decompress to: at most a size, and at most a ratio of the compressed bytes received.
    private struct Bound {
        var size: Int
        var ratio: Int?
        var received: Int

        /// Why output of this many bytes is refused, or `nil` while it is within the bound.
        func refusal(_ produced: Int) -> PerMessageDeflate.Refusal? {
            if produced > size {
                return PerMessageDeflate.Refusal(
                    reason: "inflates to more than \(size) bytes, the limit",
                    exceedsBound: true
                )
            }
            if let ratio, ContentDecoder.exceedsRatio(ratio, decoded: produced, received: received) {
                return PerMessageDeflate.Refusal(
                    reason:
                        "expands more than \(ratio) times, a likely decompression bomb: \(produced) bytes decompressed from \(received) bytes received; the bound is the WebSocket's maximumDecompressionRatio",
                    exceedsBound: true
                )
            }
            return nil
        }
    }

    /// Runs zlib over all of the input, appending its output, and stops past the bound, if any.
    private func run(
        _ input: some ContiguousBytes,
        flush: Int32,
        bound: Bound?,
        into output: inout [UInt8]
    ) -> PerMessageDeflate
        .Refusal?
    {
        input.withUnsafeBytes { source in
            stream.next_in = source.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = UInt32(source.count)
            defer {
                stream.next_in = nil
                stream.next_out = nil
            }
            while true {
                let (result, produced) = buffer.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    stream.avail_out = UInt32(out.count)
                    let result = compresses ? zlib.deflate(&stream, flush) : zlib.inflate(&stream, flush)
                    return (result, out.count - Int(stream.avail_out))
                }
                output.append(contentsOf: buffer[0..<produced])
                if let refusal = bound?.refusal(output.count) {
                    return refusal
                }
                switch Int(result) {
                case SLUICE_Z_OK, SLUICE_Z_BUF_ERROR:
                    // Done once zlib has taken every byte and had room to spare for what it made of them.
                    if stream.avail_in == 0 && stream.avail_out > 0 {
                        return nil
                    }
                case SLUICE_Z_STREAM_END where !compresses:
                    return stream.avail_in == 0
                        ? nil : PerMessageDeflate.Refusal(reason: "has bytes after the end of its deflate stream")
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                    return PerMessageDeflate.Refusal(reason: "is not valid deflate data: \(message)")
                }
            }
        }
    }
}

extension WebSocketFrameParser {
    /// A decompressor of the server's messages with context takeover, as a parser under `permessage-deflate` uses
    /// it, for the fuzzer; `nil` where zlib cannot be loaded.
    package static func fuzzingInflater() -> ((Data, Int) throws(PerMessageDeflate.Refusal) -> Data)? {
        let ratio = WebSocket.Configuration().maximumDecompressionRatio
        guard case .success(let zlib) = ZLib.shared,
            let codec = try? MessageDeflateCodec(
                zlib: zlib,
                compresses: false,
                windowBits: 15,
                resetsEachMessage: false
            )
        else { return nil }
        return { (payload, limit) throws(PerMessageDeflate.Refusal) in
            try codec.decompress(payload, limit: limit, maximumRatio: ratio)
        }
    }
}
