import Foundation
import SluiceCore

/// What must hold for every body the transport's content decoder reads: it never crashes, hands out chunks of at most
/// ``ContentDecoder/chunkSize`` bytes and no more than its limit in all, decodes the same body whole and in chunks cut
/// anywhere to the same bytes (or fails both ways), and rejects a body only with a ``SluiceError`` that names the
/// coding.
package enum ContentDecoderInvariants {
    /// A tight size limit, so that small inputs that expand reach it.
    static let maximumSize = 1 << 20
    /// The ratio bound, the transport's default.
    static let maximumRatio = 100

    /// Decodes an input's payload whole, then in its chunks, and compares.
    ///
    /// Flags 0 and 1 choose the coding: `gzip`, `deflate`, `br` or `zstd`; flag 2 stacks `gzip` under it.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) -> String? {
        let base = ContentCoding.all[(input.flag(0) ? 1 : 0) + (input.flag(1) ? 2 : 0)]
        let codings = input.flag(2) ? [ContentCoding.gzip, base] : [base]
        guard codings.allSatisfy(ContentCoding.available.contains) else { return nil }
        let whole = decode([input.payload], codings: codings)
        let chunked = decode(input.chunks, codings: codings)
        for outcome in [whole, chunked] {
            if case .failure(let problem) = outcome, !problem.hasPrefix("rejected: ") {
                return problem.description
            }
        }
        switch (whole, chunked) {
        case (.success(let a), .success(let b)) where a != b:
            return "decoded whole to \(a.count) bytes, in chunks cut at \(input.cuts) to \(b.count) bytes"
        case (.success, .failure(let error)), (.failure(let error), .success):
            // The ratio is checked as chunks of output come, and they come at other points when the input is cut
            // otherwise: a body whose start expands past the bound may pass whole and fail cut, or the reverse.
            if error.description.contains("expands more than") {
                return nil
            }
            // libzstd decodes a frame that arrives whole in one call by another path than its streaming one, and that
            // path refuses some malformed frames the streaming one decodes (seen with libzstd 1.5.4: a single-segment
            // frame, refused with "Data corruption detected" whole, decoded in pieces). Either way the body is bounded
            // and the refusal names the coding; the difference is the library's.
            if codings.last == .zstd, error.description.contains("zstd coding is corrupt"),
                error.description.contains("Data corruption detected")
            {
                return nil
            }
            return "decoded one way, not the other: \(error)"
        default:
            return nil
        }
    }

    /// The decoded bytes, or why the body was rejected (prefixed `rejected: `) or an invariant broken.
    static func decode(_ chunks: [[UInt8]], codings: [ContentCoding]) -> Result<Data, Problem> {
        let name = codings.map(\.name).joined(separator: ", ")
        do throws(SluiceError) {
            let decoder = try ContentDecoder(
                codings: codings,
                limits: ContentDecoding(maximumSize: maximumSize, maximumRatio: maximumRatio)
            )
            var decoded = Data()
            for chunk in chunks {
                decoder.feed(Data(chunk))
                while let piece = try decoder.next() {
                    guard !piece.isEmpty, piece.count <= ContentDecoder.chunkSize else {
                        return .failure(Problem("a chunk of \(piece.count) bytes"))
                    }
                    decoded.append(piece)
                    guard decoded.count <= maximumSize else {
                        return .failure(Problem("\(decoded.count) bytes decoded, past the limit of \(maximumSize)"))
                    }
                }
            }
            try decoder.finish()
            return .success(decoded)
        } catch {
            // A stack of codings is named whole, or by the layer that failed and the stack: "gzip (of br, gzip) coding".
            let named = codings.contains {
                error.message.contains("\($0.name) coding") || error.message.contains("\($0.name) (of \(name)) coding")
            }
            guard error.code == .transport, error.message.hasPrefix("the response body"), named else {
                return .failure(Problem("an error that does not name the coding \(name): \(error.message)"))
            }
            return .failure(Problem("rejected: \(error.message)"))
        }
    }

    /// A rejection or a broken invariant, in words.
    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
        func hasPrefix(_ prefix: String) -> Bool { description.hasPrefix(prefix) }
    }
}
