/// A ``Client`` that answers requests with their sample data instead of the network, so that screens and tests
/// run offline.
///
/// The sample body goes through the request's real response stages (deserializer, parser, `parse`), exactly as a
/// response from a server would, so a sample that does not match the model fails the same way. A request without
/// sample data goes to the fallback client, or fails with a transport error that says so.
///
/// ```swift
/// let preview = SampleDataClient(behavior: .delayed(.milliseconds(300)))
/// let account = try await preview.perform(AccountsAPIDefinition.details, expecting: Account.self)
/// ```
public struct SampleDataClient: Client {
    /// When the sample answer arrives.
    public struct Behavior: Sendable, Hashable {
        let delay: Duration

        /// At once.
        public static let immediate = Behavior(delay: .zero)

        /// After a delay, as a slow network would; cancelling the calling task ends the wait at once.
        ///
        /// - Parameter delay: How long to wait.
        /// - Returns: The behavior.
        public static func delayed(_ delay: Duration) -> Behavior {
            Behavior(delay: delay)
        }
    }

    /// When the sample answer arrives.
    public var behavior: Behavior
    /// The client for requests without sample data, or `nil` to fail them.
    public var fallback: (any Client)?
    /// The deserializer for sample bodies of requests that name none.
    public var deserializer: any Deserializer

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - behavior: When the sample answer arrives; at once by default.
    ///   - fallback: The client for requests without sample data; none by default.
    ///   - deserializer: The deserializer for sample bodies; a `JSONDeserializer` by default.
    public init(
        behavior: Behavior = .immediate,
        fallback: (any Client)? = nil,
        deserializer: any Deserializer = JSONDeserializer()
    ) {
        self.behavior = behavior
        self.fallback = fallback
        self.deserializer = deserializer
    }

    /// Answers a request with its sample data, or hands it to the fallback.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response object decoded from the sample data.
    /// - Throws: ``SluiceError``: a build or parse failure, a cancellation during the delay, or a transport error
    ///   for a request without sample data and no fallback.
    public func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
        guard let sample = (request as? any SampleDataClient.Providing)?.sampleData else {
            if let fallback {
                return try await fallback.perform(request)
            }
            throw SluiceError(
                .transport,
                message: "\(R.self) has no sample data, and the SampleDataClient has no fallback client",
                request: try? request.build()
            )
        }
        let urlRequest = try request.buildStage()
        if behavior.delay > .zero {
            do {
                try await Task.sleep(for: behavior.delay)
            } catch {
                throw SluiceError(.cancelled, stage: .transport, request: urlRequest, underlyingError: error)
            }
        }
        let response = HTTPResponse(status: .ok, body: sample, url: urlRequest.url)
        do {
            return try request.responseObject(from: sample, deserializer: deserializer)
        } catch {
            throw error.adding(request: urlRequest, response: response)
        }
    }
}
