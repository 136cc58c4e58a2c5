extension SluiceError {
    /// Which field of which endpoint could not be built into a request, and why: the details of a
    /// ``SluiceError/Code/build`` failure, in ``SluiceError/invalidField``.
    ///
    /// Nothing is sent. Its description is the line the error's message ends with:
    ///
    /// ```text
    /// DeleteEvent.pathComponents.eventId: the path value is empty, which would leave an empty segment
    /// ```
    public struct InvalidField: Sendable, Hashable, CustomStringConvertible {
        /// The endpoint's type name.
        public let endpoint: String
        /// The field that was wrong, such as `pathComponents.eventId`, `parameters.tags[2]` or `headers.X-Trace`; a
        /// header name that is not a token is quoted, `headers["X Trace"]`.
        public let field: String
        /// What was wrong with it.
        public let reason: String

        /// Creates the details of a failure.
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

        /// The endpoint, the field and the reason: `DeleteEvent.pathComponents.eventId: the path value is empty`.
        public var description: String { "\(endpoint).\(field): \(reason)" }
    }

    /// Which field could not be built, and why, when the request failed in building or in the checks a performer
    /// makes before sending; otherwise `nil`.
    public var invalidField: InvalidField? {
        (underlyingError as? InvalidFieldError)?.details
    }

    /// Creates a build failure for an invalid field, as a ``RequestBody/Encoder`` of your own may throw it to name
    /// the field of the body at fault.
    ///
    /// - Parameter invalidField: Which field, of which endpoint, and why.
    public init(invalidField: InvalidField) {
        self.init(.build, underlyingError: InvalidFieldError(invalidField))
    }

    /// Runs building code, reporting a field it refuses as a ``SluiceError`` with code ``SluiceError/Code/build``.
    ///
    /// - Parameter body: The building code.
    /// - Returns: What it returns.
    /// - Throws: What it throws, with an ``InvalidFieldError`` made a ``SluiceError``.
    package static func reportingInvalidFields<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as InvalidFieldError {
            throw SluiceError(invalidField: error.details)
        }
    }
}

/// The error the building code throws inside the package, typed so that each step names the field it refused;
/// public functions report it as a ``SluiceError`` with code ``SluiceError/Code/build`` and the field in
/// ``SluiceError/invalidField``.
package struct InvalidFieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field, its endpoint and the reason.
    package let details: SluiceError.InvalidField

    /// The endpoint's type name.
    package var endpoint: String { details.endpoint }

    /// The field that was wrong.
    package var field: String { details.field }

    /// What was wrong with it.
    package var reason: String { details.reason }

    /// Creates the error.
    ///
    /// - Parameters:
    ///   - endpoint: The endpoint's type name.
    ///   - field: The field that was wrong.
    ///   - reason: What was wrong with it.
    package init(endpoint: String, field: String, reason: String) {
        self.init(SluiceError.InvalidField(endpoint: endpoint, field: field, reason: reason))
    }

    /// Creates the error from its details.
    ///
    /// - Parameter details: The field, its endpoint and the reason.
    package init(_ details: SluiceError.InvalidField) {
        self.details = details
    }

    /// The details' description.
    package var description: String { details.description }
}
