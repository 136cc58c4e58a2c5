extension APIClient {
    /// Which response statuses a client accepts; any other fails the request with ``SluiceError/Code/status``.
    ///
    /// ```swift
    /// let client = APIClient(acceptableStatus: .codes(200..<300, 304))
    /// ```
    public struct StatusValidation: Sendable {
        /// Whether a status is accepted: `validation.accepts(.created)`.
        public let accepts: @Sendable (HTTPStatus) -> Bool

        /// Creates a validation from a predicate.
        ///
        /// - Parameter accepts: Whether a status is accepted.
        public init(_ accepts: @escaping @Sendable (HTTPStatus) -> Bool) {
            self.accepts = accepts
        }

        /// Accepts 2xx, the default.
        public static let successful = APIClient.StatusValidation { $0.isSuccessful }

        /// Accepts every status, leaving the request's `parse` to look at the response.
        public static let any = APIClient.StatusValidation { _ in true }

        /// Accepts the statuses in some ranges.
        ///
        /// - Parameter ranges: The accepted ranges of codes.
        /// - Returns: The validation.
        public static func codes(_ ranges: Range<Int>...) -> APIClient.StatusValidation {
            APIClient.StatusValidation { status in ranges.contains { $0.contains(status.code) } }
        }

        /// Accepts the statuses in a range and some single codes.
        ///
        /// - Parameters:
        ///   - range: An accepted range of codes.
        ///   - codes: Further accepted codes.
        /// - Returns: The validation.
        public static func codes(_ range: Range<Int>, _ codes: Int...) -> APIClient.StatusValidation {
            let single = Set(codes)
            return APIClient.StatusValidation { status in range.contains(status.code) || single.contains(status.code) }
        }
    }
}
