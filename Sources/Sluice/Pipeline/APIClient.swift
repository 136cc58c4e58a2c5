/// The default ``Client``: runs each request through a ``RequestPerformer``, a status check, a ``Deserializer``,
/// the request's parser and the request's `parse`.
///
/// ```swift
/// let client = APIClient()  // NetworkRequestPerformer on URLSession, JSONDeserializer
/// let user = try await client.perform(GetUser(id: 42))
/// ```
///
/// Each stage is replaceable: pass another performer (a stub in tests, a decorated performer that retries or
/// authenticates), another deserializer (for a service that does not speak JSON), or another status validation.
///
/// Every failure is thrown as one ``SluiceError``, wrapped once at the stage that failed, carrying the request,
/// the response when one arrived, and the underlying error.
public struct APIClient: Client {
    /// Sends requests and receives responses.
    public var requestPerformer: any RequestPerformer
    /// Deserializes bodies for requests that name no deserializer of their own.
    public var deserializer: any Deserializer
    /// The statuses accepted; any other fails the request with ``SluiceError/Code/status``.
    public var acceptableStatus: StatusValidation

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - requestPerformer: The transport; a ``NetworkRequestPerformer`` by default.
    ///   - deserializer: The default deserializer; a ``JSONDeserializer`` by default.
    ///   - acceptableStatus: The statuses accepted; 2xx by default.
    public init(
        requestPerformer: any RequestPerformer = NetworkRequestPerformer(),
        deserializer: any Deserializer = JSONDeserializer(),
        acceptableStatus: StatusValidation = .successful
    ) {
        self.requestPerformer = requestPerformer
        self.deserializer = deserializer
        self.acceptableStatus = acceptableStatus
    }

    /// Performs a request and returns its response object.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The request's response object.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
        try await response(for: request).value
    }

    /// Performs a request and returns its response object with the HTTP response and the time each stage took.
    ///
    /// - Parameter request: The request to perform.
    /// - Returns: The response object, the request as sent, the HTTP response and the stage times.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func response<R: Request>(for request: R) async throws(SluiceError) -> ClientResponse<R.ResponseObject> {
        let clock = ContinuousClock()
        var metrics = PipelineMetrics()
        var mark = clock.now

        let urlRequest: URLRequest
        do {
            urlRequest = try request.build()
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.build, underlyingError: error)
        }
        metrics.requestBodyBytes = urlRequest.httpBody?.count ?? 0
        var now = clock.now
        metrics.build = now - mark
        mark = now

        if Task.isCancelled {
            throw SluiceError(.cancelled, stage: .build, request: urlRequest, underlyingError: CancellationError())
        }
        let httpResponse: HTTPResponse
        do {
            httpResponse = try await requestPerformer.perform(urlRequest)
        } catch {
            throw APIClient.transportError(error, request: urlRequest)
        }
        now = clock.now
        metrics.transport = now - mark
        metrics.responseBodyBytes = httpResponse.body.count

        guard acceptableStatus.accepts(httpResponse.status) else {
            var error = SluiceError(.status, request: urlRequest, response: httpResponse)
            do {
                error.errorResponse = try request.errorResponse(from: httpResponse)
            } catch let decodingError {
                error.errorResponseDecodingError = decodingError
            }
            throw error
        }

        var stageMetrics: PipelineMetrics? = metrics
        let value: R.ResponseObject
        do {
            value = try request.runResponseStages(
                body: httpResponse.body,
                deserializer: deserializer,
                metrics: &stageMetrics
            )
        } catch {
            throw error.adding(request: urlRequest, response: httpResponse)
        }
        return ClientResponse(
            value: value,
            request: urlRequest,
            http: httpResponse,
            metrics: stageMetrics ?? metrics
        )
    }

    /// Wraps what a performer threw: a ``SluiceError`` passes through with the request added, a cancellation
    /// becomes ``SluiceError/Code/cancelled``, a timeout ``SluiceError/Code/timedOut``, anything else
    /// ``SluiceError/Code/transport``.
    static func transportError(_ error: any Error, request: URLRequest) -> SluiceError {
        if let error = error as? SluiceError {
            return error.adding(request: request, response: nil)
        }
        if error is CancellationError || (error as? URLError)?.code == .cancelled {
            return SluiceError(.cancelled, stage: .transport, request: request, underlyingError: error)
        }
        if (error as? URLError)?.code == .timedOut {
            return SluiceError(.timedOut, stage: .transport, request: request, underlyingError: error)
        }
        return SluiceError(.transport, request: request, underlyingError: error)
    }
}
