/// The records of a JSON Lines (NDJSON) body, each line decoded to a `Decodable` value as it arrives: what
/// ``Client/jsonLines(_:of:decoder:maximumLineLength:)`` reads a response with.
///
/// Each line is one JSON document, decoded with a ``JSONDocumentDecoder``, with its strategies and limits. Lines end
/// at LF, CRLF or CR; a last line without a terminator is read too. Blank lines, empty or holding only spaces and
/// tabs, are skipped, as the NDJSON specification allows, and still counted, so a line number in an error is the
/// line a text editor would show.
///
/// A line that is not valid JSON ends the sequence with a ``StreamParseError`` of code
/// ``StreamParseError/Code/invalidJSON`` naming the line and the column; a line of the wrong shape, with
/// ``StreamParseError/Code/decodingFailed`` naming the line and the JSON path. The sequence reads the base only as
/// records are asked for and ends by throwing `CancellationError` when the consuming task is cancelled.
package struct JSONLinesDecodingSequence<Base: AsyncSequence, Record: Decodable>: AsyncSequence
where Base.Element == Data {
    /// A decoded record.
    package typealias Element = Record

    private let base: Base
    private let decoder: JSONDocumentDecoder
    private let maximumLineLength: Int

    /// Creates the records of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The body's bytes, in chunks of any size.
    ///   - decoder: The decoder for each line.
    ///   - maximumLineLength: The most bytes a line may hold.
    package init(base: Base, decoder: JSONDocumentDecoder, maximumLineLength: Int) {
        self.base = base
        self.decoder = decoder
        self.maximumLineLength = maximumLineLength
    }

    /// Creates an iterator over the records.
    ///
    /// - Returns: An iterator that reads the base as records are asked for.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            reader: LineReader(base: base.makeAsyncIterator(), maximumLineLength: maximumLineLength),
            decoder: decoder
        )
    }

    /// An iterator over the records of a sequence of byte chunks.
    package struct AsyncIterator: AsyncIteratorProtocol {
        private var reader: LineReader<Base.AsyncIterator>
        private var decoder: JSONDocumentDecoder

        fileprivate init(reader: LineReader<Base.AsyncIterator>, decoder: JSONDocumentDecoder) {
            self.reader = reader
            self.decoder = decoder
        }

        /// Reads and decodes the next record, skipping blank lines.
        ///
        /// - Returns: The next record, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line that is not valid JSON, does not decode, or is past the limit;
        ///   `CancellationError` when the task is cancelled; what the base throws.
        package mutating func next() async throws -> Record? {
            try await reader.next(&decoder, readsUnterminatedLine: true) { decoder, line, number in
                try JSONLinesDecodingSequence.decode(line, number: number, with: decoder)
            }
        }
    }

    /// Decodes one line, or returns `nil` for a blank one.
    private static func decode(
        _ line: UnsafeBufferPointer<UInt8>,
        number: Int,
        with decoder: JSONDocumentDecoder
    ) throws -> Record? {
        guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return nil }
        // Parsed apart from the decoding, so that a line that is not JSON is told from a record of the wrong shape.
        let document: JSON
        do {
            document = try decoder.deserializer.document(from: Data(line))
        } catch {
            throw StreamParseError.invalidJSON(error, line: number)
        }
        do {
            return try decoder.decode(Record.self, from: document)
        } catch let error as DecodingError {
            throw StreamParseError.decodingFailed(error, type: Record.self, line: number, text: line)
        }
    }
}

extension JSONLinesDecodingSequence: Sendable where Base: Sendable {}

// An iterator is one loop's cursor; it can move to another task with its loop when its base's iterator can.
extension JSONLinesDecodingSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

extension AsyncSequence where Element == Data {
    /// The records of a JSON Lines (NDJSON) body given as byte chunks, each line decoded to `type`.
    ///
    /// - Parameters:
    ///   - type: The type each line decodes to.
    ///   - decoder: The decoder for each line; a default ``JSONDocumentDecoder`` when omitted.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    /// - Returns: The records, read from this sequence as they are asked for.
    package func decodingJSONLines<Record: Decodable>(
        of type: Record.Type,
        decoder: JSONDocumentDecoder = JSONDocumentDecoder(),
        maximumLineLength: Int = 1 << 20
    ) -> JSONLinesDecodingSequence<Self, Record> {
        JSONLinesDecodingSequence(base: self, decoder: decoder, maximumLineLength: maximumLineLength)
    }
}
