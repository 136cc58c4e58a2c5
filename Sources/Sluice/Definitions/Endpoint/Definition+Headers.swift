extension Definition {
    /// The headers of a ``Definition``, written as a dictionary literal of ``Header`` names and ``HeaderField``
    /// values.
    ///
    /// ```swift
    /// headers: [
    ///     "X-Trace": .field(path: \.traceID),
    ///     .accept: .fieldValue(value: "application/json"),
    /// ]
    /// ```
    ///
    /// Unlike a `Dictionary`, it keeps every pair as written, so that a name written twice is reported instead
    /// of trapping: header names are compared ignoring case, so `"X-Trace"` and `"x-trace"` are the same header,
    /// and a definition that sets one twice fails the build stage with an ``EndpointBuildError`` naming it.
    public struct Headers: Sendable {
        private var fields: [(header: Header, field: HeaderField<E.HeaderValues>)]

        /// Creates the headers of a dictionary built in code.
        ///
        /// - Parameter headers: The header names and their fields.
        public init(_ headers: [Header: HeaderField<E.HeaderValues>]) {
            fields = headers.map { (header: $0.key, field: $0.value) }
        }

        /// The headers in the order they are added to the request, by their names ignoring case.
        ///
        /// - Parameter endpoint: The endpoint's name, for the error.
        /// - Returns: The names and fields.
        /// - Throws: ``EndpointBuildError`` when a name is written twice.
        func inOrder(
            endpoint: String
        ) throws(EndpointBuildError) -> [(header: Header, field: HeaderField<E.HeaderValues>)] {
            var first: [Header: Header] = [:]
            for (header, _) in fields {
                if let earlier = first[header] {
                    throw EndpointBuildError(
                        endpoint: endpoint,
                        field: HeaderValidation.field(naming: earlier.name),
                        reason: "the definition sets the header twice, as \"\(earlier.name)\" and \"\(header.name)\"; "
                            + "header names are compared ignoring case"
                    )
                }
                first[header] = header
            }
            return fields.sorted { $0.header.canonicalName < $1.header.canonicalName }
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
