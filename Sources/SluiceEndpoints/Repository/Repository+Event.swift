extension Repository {
    /// Something that happened to a request performed by a ``Repository``, as published on its event stream.
    public struct Event: Sendable {
        /// What happened.
        ///
        /// An open set: compare against the static members.
        public struct Kind: Sendable, Hashable, CustomStringConvertible {
            private let name: String

            /// The request was handed to the client.
            public static let started = Kind(name: "started")
            /// The request produced its response.
            public static let succeeded = Kind(name: "succeeded")
            /// The request failed; ``Repository/Event/error`` says why.
            public static let failed = Kind(name: "failed")
            /// The calling task was cancelled.
            public static let cancelled = Kind(name: "cancelled")

            /// The kind's name, such as `succeeded`.
            public var description: String { name }
        }

        /// What happened.
        public let kind: Kind
        /// The position of the event in the repository's stream, counted from 1.
        ///
        /// A subscriber that sees a gap missed events because it fell behind by more than its buffer.
        public let sequence: UInt64
        /// The request's number in the repository, counted from 1, shared by all the events of one request.
        public let requestID: UInt64
        /// The endpoint definition's type name.
        public let endpoint: String
        /// The environment the request was performed in.
        public let environment: Environment
        /// The request method.
        public let method: HTTPMethod
        /// The time from the start event to this one; zero for the start event.
        public let elapsed: Duration
        /// The failure, for a failed or cancelled request.
        public let error: SluiceError?
    }
}

extension Repository.Event: CustomStringConvertible {
    /// One line, such as `#12 request 4 Following succeeded after 3.1ms`.
    public var description: String {
        var text = "#\(sequence) request \(requestID) \(method) \(endpoint) [\(environment)] \(kind)"
        if kind != .started {
            text += " after \(PipelineMetrics.format(elapsed))"
        }
        if kind == .failed, let error {
            text += ": \(error.message)"
        }
        return text
    }
}
