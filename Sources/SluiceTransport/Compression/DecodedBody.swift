import Foundation

/// A streamed body whose content codings are decoded as its reader reads it, a chunk of at most
/// ``ContentDecoder/chunkSize`` bytes at a time.
///
/// The transport's back-pressure is unchanged: it counts the encoded bytes waiting, and they are taken only as the
/// reader asks for decoded ones. Decoding runs on the reader's task, not on the transport's event loop.
struct DecodedBody: AsyncSequence, Sendable {
    typealias Element = Data

    /// The body as the server sent it.
    let encoded: HTTPBody
    /// The codings, as applied.
    let codings: [ContentCoding]
    /// The limits of decoding.
    let limits: ContentDecoding

    /// The body to hand out: the decoded bytes, of a length not known in advance.
    var body: HTTPBody { HTTPBody(self, expectedLength: nil).reportingTrailers(of: encoded) }

    func makeAsyncIterator() -> Iterator {
        Iterator(encoded: encoded.makeAsyncIterator(), codings: codings, limits: limits)
    }

    /// Reads the encoded body and decodes it.
    struct Iterator: AsyncIteratorProtocol {
        private var encoded: HTTPBody.AsyncIterator
        private let codings: [ContentCoding]
        private let limits: ContentDecoding
        private var decoder: ContentDecoder?
        private var done = false

        fileprivate init(encoded: HTTPBody.AsyncIterator, codings: [ContentCoding], limits: ContentDecoding) {
            self.encoded = encoded
            self.codings = codings
            self.limits = limits
        }

        /// The next decoded chunk, or `nil` at the end of the body.
        ///
        /// - Returns: The chunk, never empty.
        /// - Throws: What the transfer throws, or ``SluiceError`` when the body cannot be decoded; `nil` follows.
        mutating func next() async throws -> Data? {
            guard !done else { return nil }
            do {
                let decoder = try self.decoder ?? ContentDecoder(codings: codings, limits: limits)
                self.decoder = decoder
                while true {
                    if let chunk = try decoder.next() {
                        return chunk
                    }
                    guard let input = try await encoded.next() else {
                        try decoder.finish()
                        done = true
                        return nil
                    }
                    decoder.feed(input)
                }
            } catch {
                done = true
                decoder = nil
                throw error
            }
        }
    }
}
