/// The default deserializer: Sluice's own strict RFC 8259 parser, producing a ``JSON`` document.
///
/// The document keeps a copy of the body's bytes and a flat index of the values in them; no tree of
/// dictionaries is built, and strings and numbers are converted only when read. ``JSON/parse(_:)`` then takes
/// the document as it is.
///
/// The memory of a document of 64 KiB to 8 MiB (its copy of the bytes, or its index) is kept when the document is
/// gone, for the next parses to reuse, up to 16 MiB in all for the process: memory fresh from the allocator has to
/// be faulted in by the kernel page by page, which took as long as parsing a response of a few hundred kilobytes.
///
/// Input is checked strictly: exactly one JSON value, optionally surrounded by whitespace; well-formed UTF-8;
/// no trailing commas, comments, leading zeros or unescaped control characters; `\u` escapes with paired
/// surrogates. A UTF-8 byte order mark before the value is skipped, as RFC 8259 allows. A document in UTF-16 or
/// UTF-32 (told by its byte order mark, or by the zeros around its first character) is read too, as Foundation's
/// decoders read it: it is transcoded to UTF-8 first, and the offsets of its errors count bytes of that UTF-8 form
/// (lines and columns are the same in both). Two limits protect the process from hostile input: ``maximumDepth`` for nesting (parsing uses
/// no recursion, so the limit bounds memory, not the stack) and ``maximumSize`` for the body.
///
/// An empty body is not JSON. Because servers send one with 204 and often with 202, the deserializer returns
/// ``JSON/null`` for it by default, so that decoding an optional model gives `nil` and anything else a clear
/// error; set ``emptyBody`` to ``EmptyBody/reject`` to treat it as an error instead.
public struct JSONDeserializer: Sendable {
    /// What to do with an empty body.
    public struct EmptyBody: Sendable, Hashable {
        private let rejects: Bool

        /// Produce ``JSON/null``.
        public static let null = EmptyBody(rejects: false)
        /// Throw ``JSONError/Code/emptyInput``.
        public static let reject = EmptyBody(rejects: true)

        var isRejected: Bool { rejects }
    }

    /// The deepest nesting of arrays and objects accepted.
    public var maximumDepth: Int
    /// The largest body accepted, in bytes.
    ///
    /// Whatever this allows, a document of 4 GiB or more (4,294,967,231 bytes) is refused with
    /// ``JSONError/Code/sizeLimitExceeded``: a parsed document locates its values with 32-bit offsets.
    public var maximumSize: Int
    /// What to do with an empty body.
    public var emptyBody: EmptyBody

    /// Creates a deserializer.
    ///
    /// - Parameters:
    ///   - maximumDepth: The deepest nesting of arrays and objects accepted; 512 by default.
    ///   - maximumSize: The largest body accepted in bytes; 64 MiB by default.
    ///   - emptyBody: What to do with an empty body; ``EmptyBody/null`` by default.
    public init(maximumDepth: Int = 512, maximumSize: Int = 64 << 20, emptyBody: EmptyBody = .null) {
        self.maximumDepth = maximumDepth
        self.maximumSize = maximumSize
        self.emptyBody = emptyBody
    }

    /// Parses a body into a ``JSON`` document.
    ///
    /// - Parameter data: The body.
    /// - Returns: The ``JSON`` document.
    /// - Throws: ``JSONError`` with the position of the first problem.
    public func deserialize(_ data: Data) throws -> Any {
        try document(from: data)
    }

    /// Parses a body into a ``JSON`` document, typed.
    ///
    /// - Parameter data: The body.
    /// - Returns: The document.
    /// - Throws: ``JSONError`` with the position of the first problem.
    public func document(from data: Data) throws(JSONError) -> JSON {
        if data.isEmpty, !emptyBody.isRejected {
            return .null
        }
        let result = data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<JSONStorage, JSONError> in
            Result { () throws(JSONError) in
                let (encoding, markLength) = JSONTextEncoding.detect(bytes)
                guard encoding != .utf8 else {
                    return try JSONParser.parse(bytes, maximumDepth: maximumDepth, maximumSize: maximumSize)
                }
                let text = try encoding.utf8(of: bytes, skipping: markLength)
                return try text.withUnsafeBufferPointer { text -> Result<JSONStorage, JSONError> in
                    Result { () throws(JSONError) in
                        do throws(JSONError) {
                            return try JSONParser.parse(
                                UnsafeRawBufferPointer(text),
                                maximumDepth: maximumDepth,
                                maximumSize: maximumSize
                            )
                        } catch {
                            // Located in the transcoded text: the line, column and excerpt stay, and the offset
                            // becomes the input's, which is what the caller has.
                            throw JSONError(
                                error.code,
                                error.reason,
                                at: error.offset,
                                in: text,
                                inputOffset: encoding.inputOffset(of: error.offset, in: text, markLength: markLength)
                            )
                        }
                    }
                }.get()
            }
        }
        return JSON(storage: try result.get(), entry: 0)
    }
}
