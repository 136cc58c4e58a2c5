extension SluiceError {
    /// An endpoint of any dialect that could not be built into a request: which endpoint, which field, and why.
    ///
    /// Nothing is sent. The client reports it as a ``SluiceError`` with code ``SluiceError/Code/build``.
    ///
    /// ```text
    /// DeleteEvent.pathComponents.eventId: the path value is empty, which would leave an empty segment
    /// ```
    public struct InvalidField: Error, Sendable, Hashable {
        /// The endpoint's type name.
        public let endpoint: String
        /// The field that was wrong, such as `pathComponents.eventId`, `parameters.tags[2]` or `headers.X-Trace`; a
        /// header name that is not a token is quoted, `headers["X Trace"]`.
        public let field: String
        /// What was wrong with it.
        public let reason: String

        /// Creates an error.
        ///
        /// - Parameters:
        ///   - endpoint: The endpoint's type name.
        ///   - field: The field that was wrong.
        ///   - reason: What was wrong with it.
        public init(endpoint: String, field: String, reason: String) {
            self.endpoint = endpoint
            self.field = field
            self.reason = reason
        }
    }
}

extension SluiceError.InvalidField: CustomStringConvertible {
    /// The endpoint, the field and the reason: `DeleteEvent.pathComponents.eventId: the path value is empty`.
    public var description: String { "\(endpoint).\(field): \(reason)" }
}
