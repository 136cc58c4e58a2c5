extension Definition {
    /// The headers of a ``Definition``, written as a dictionary literal of ``Header`` names and ``HeaderField``
    /// values.
    ///
    /// ```swift
    /// headers: [
    ///     "X-Trace": .field(\.traceID),
    ///     .accept: .fieldValue(value: "application/json"),
    /// ]
    /// ```
    ///
    /// Unlike a `Dictionary`, it keeps every pair as written, so that a name written twice is reported instead
    /// of trapping: header names are compared ignoring case, so `"X-Trace"` and `"x-trace"` are the same header,
    /// and a definition that sets one twice fails the build stage with a ``SluiceError`` whose ``SluiceError/invalidField`` names it.
    public struct Headers: Sendable {
        private var fields: [(header: Header, field: HeaderField<E.HeaderValues>)]

        /// Creates the headers of a dictionary built in code.
        ///
        /// - Parameter headers: The header names and their fields.
        public init(_ headers: [Header: HeaderField<E.HeaderValues>]) {
            fields = headers.map { (header: $0.key, field: $0.value) }
        }
    }
}

extension Definition.Headers: ExpressibleByDictionaryLiteral {
    /// Creates the headers of a dictionary literal, keeping every pair as written.
    ///
    /// - Parameter elements: The header names and their fields.
    public init(dictionaryLiteral elements: (Header, HeaderField<E.HeaderValues>)...) {
        fields = elements.map { (header: $0.0, field: $0.1) }
    }
}

extension Definition.Headers: Sequence {
    /// Iterates over the header names and their fields in the order written.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> IndexingIterator<[(header: Header, field: HeaderField<E.HeaderValues>)]> {
        fields.makeIterator()
    }
}
