extension Download {
    /// What a finished ``Download`` produced: the file in place, the response it came from, and how it got there.
    public struct Result: Sendable {
        /// The file: the destination the download was asked to write.
        public var url: URL

        /// The head of the response that completed the file (its ``HTTPResponse/body`` empty): `200 OK` for a download
        /// from the start, `206 Partial Content` for one resumed, `416 Range Not Satisfiable` for a partial file that an
        /// earlier download had already completed.
        public var response: HTTPResponse

        /// The size of the file in bytes.
        public var bytes: Int64

        /// The size of the partial file an earlier attempt left, where this download resumed; `nil` when it started
        /// from the first byte.
        public var resumedFrom: Int64?

        /// Creates a result.
        ///
        /// - Parameters:
        ///   - url: The file.
        ///   - response: The head of the response that completed it.
        ///   - bytes: The size of the file.
        ///   - resumedFrom: Where the download resumed, or `nil`.
        public init(url: URL, response: HTTPResponse, bytes: Int64, resumedFrom: Int64?) {
            self.url = url
            self.response = response
            self.bytes = bytes
            self.resumedFrom = resumedFrom
        }
    }
}
