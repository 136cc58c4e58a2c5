public import HTTPTypes
public import OpenAPIRuntime
public import SluiceCore

/// A swift-openapi-runtime transport that sends a generated client's requests through a Sluice performer, so that its
/// middleware (retry, authentication, the cache, de-duplication, deadlines, redaction, record and replay) applies to
/// them.
///
/// ```swift
/// let performer = SocketRequestPerformer().retrying(.default)
/// let client = Client(serverURL: try Servers.Server1.url(), transport: SluiceClientTransport(performer))
/// ```
///
/// Bodies stream both ways. A request body the runtime can iterate once (`IterationBehavior.single`) is sent as it
/// is produced, once, so a retry of it fails with an error that says why; one it can iterate again (`.multiple`) is
/// produced afresh for each attempt. A known length is sent as `Content-Length`. The response returns at its head,
/// its body arriving as the client reads it, with its length when the response declares it; a `HEAD` response, and
/// one that can have no body (1xx, 204, 304, or `Content-Length: 0`), has `nil` for its body.
///
/// The URL is joined as the runtime's own transports join it: the request's path, percent-encoded as the runtime
/// wrote it, goes after the path of the base URL, and its query replaces the base URL's.
///
/// Each call is a request of its own to Sluice's middleware, with the operation's `operationId` as its
/// `RequestContext.operationName`. What fails is a `SluiceError`, which the generated client wraps in its
/// `ClientError` as the `underlyingError`.
public struct SluiceClientTransport: ClientTransport {
    /// The performer every request goes through.
    public let performer: any RequestPerformer

    /// Creates a transport on a performer.
    ///
    /// - Parameter performer: The performer, with the middleware the client's requests should go through; Sluice's
    ///   default for the platform when none is given.
    public init(_ performer: any RequestPerformer = APIClient.defaultPerformer()) {
        self.performer = performer
    }

    /// Sends a request through the performer and returns its response as soon as the head has arrived.
    ///
    /// - Parameters:
    ///   - request: The request's head, its path relative to `baseURL`.
    ///   - body: The request's body, if any.
    ///   - baseURL: The server's URL.
    ///   - operationID: The operation's `operationId`, given to the request's context as its operation name.
    /// - Returns: The response's head, and its body as it arrives, or `nil` where it has none.
    /// - Throws: `SluiceError`: with code `build` for a request Sluice refuses (`URLRequest.init(_:baseURL:)`), and
    ///   what the performer reports otherwise, as a client reports it (`SluiceError.init(transportFailure:request:)`).
    public func send(
        _ request: HTTPRequest,
        body: OpenAPIRuntime.HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPTypes.HTTPResponse, OpenAPIRuntime.HTTPBody?) {
        var head = request
        if body != nil {
            // The body's own length says it, or its absence sends it chunked.
            head.headerFields[.contentLength] = nil
        }
        var urlRequest = try URLRequest(head, baseURL: baseURL)
        if let body {
            urlRequest.setBody(body)
        }
        let sent = urlRequest
        let context = RequestContext(request: sent, operationName: operationID)
        let performer = self.performer
        let streamed: SluiceCore.HTTPResponse.Streamed
        do {
            streamed = try await context.runStreaming { _ in try await performer.stream(sent) }
        } catch {
            throw SluiceError(transportFailure: error, request: sent)
        }
        let response = try HTTPTypes.HTTPResponse(streamed)
        guard Self.hasBody(response, of: request.method, expectedLength: streamed.body.expectedLength) else {
            return (response, nil)
        }
        let length = streamed.body.expectedLength.map(OpenAPIRuntime.HTTPBody.Length.known) ?? .unknown
        return (
            response,
            OpenAPIRuntime.HTTPBody(
                ResponseChunks(body: streamed.body, request: sent),
                length: length,
                iterationBehavior: .single
            )
        )
    }

    /// Whether a response can have a body, as RFC 9110 says (sections 6.4.1 and 9.3.2): not one to `HEAD`, not a
    /// 1xx, 204 or 304, and not one that declares a length of zero.
    private static func hasBody(
        _ response: HTTPTypes.HTTPResponse,
        of method: HTTPRequest.Method,
        expectedLength: Int64?
    ) -> Bool {
        let code = response.status.code
        return method != .head && !(100..<200).contains(code) && code != 204 && code != 304 && expectedLength != 0
    }
}

extension URLRequest {
    /// Sets a runtime body as the request's: once for a body iterated once, afresh per attempt for one iterated
    /// again, with its length when known.
    fileprivate mutating func setBody(_ body: OpenAPIRuntime.HTTPBody) {
        let length: Int64? =
            switch body.length {
            case .known(let length): length
            case .unknown: nil
            }
        switch body.iterationBehavior {
        case .single:
            setBody(body, length: length)
        case .multiple:
            setBody(length: length) { body }
        }
    }
}

/// A Sluice response body as the runtime's chunks, each failure reported as a client reports it.
private struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let body: SluiceCore.HTTPBody
    let request: URLRequest

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), request: request)
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: SluiceCore.HTTPBody.AsyncIterator
        let request: URLRequest

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                return try await chunks.next().map { ArraySlice($0) }
            } catch {
                throw SluiceError(transportFailure: error, request: request)
            }
        }
    }
}
