extension Server {
    /// A server asked for the base URL of an environment it has none for.
    public struct MissingBaseURL: Error, Sendable, CustomStringConvertible {
        /// The environment asked for.
        public let environment: Environment
        /// The environments that have a base URL.
        public let configured: [String]

        /// What is missing and what is configured.
        public var description: String {
            "no base URL for the \(environment) environment"
                + (configured.isEmpty ? "; none is configured" : "; configured: \(configured.joined(separator: ", "))")
        }
    }
}
