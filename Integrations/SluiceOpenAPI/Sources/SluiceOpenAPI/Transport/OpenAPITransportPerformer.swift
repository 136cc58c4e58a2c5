import HTTPTypes
public import OpenAPIRuntime
public import SluiceCore

/// A Sluice performer that sends through any swift-openapi-runtime transport, so that Sluice's pipeline, middleware
/// and endpoint styles can run over async-http-client's or URLSession's OpenAPI transport where a user needs what
/// they offer.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let client = APIClient(requestPerformer: OpenAPITransportPerformer(transport).retrying(.default))
/// ```
///
/// The request's origin is the transport's base URL, and its path and query the request's path; its operation ID is
/// the request context's operation name, or the method and path. A body of data is sent as it is, with its length;
/// a `URLRequest` body stream cannot be read here without blocking, so a request that has one fails at once. The
/// response streams: ``stream(_:)`` returns at the head.
public struct OpenAPITransportPerformer: RequestPerformer {
    /// The transport every request goes through.
    public let transport: any ClientTransport
    /// The most bytes of a body ``perform(_:)`` reads into memory.
    public let maximumBodySize: Int

    /// Creates a performer on a transport.
    ///
    /// - Parameters:
    ///   - transport: The transport.
    ///   - maximumBodySize: The most bytes of a body ``perform(_:)`` reads into memory; 64 MiB by default.
    public init(_ transport: any ClientTransport, maximumBodySize: Int = 64 << 20) {
        self.transport = transport
        self.maximumBodySize = maximumBodySize
    }

    /// Sends a request and returns its whole response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, of any status, its body read up to ``maximumBodySize``.
    /// - Throws: What ``stream(_:)`` throws; ``SluiceError/Code/transport`` for a body longer than
    ///   ``maximumBodySize``.
    public func perform(_ request: URLRequest) async throws -> SluiceCore.HTTPResponse {
        try await stream(request).collect(upTo: maximumBodySize)
    }

    /// Sends a request and returns its response as soon as the transport returns the head.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, its body arriving as it is read.
    /// - Throws: `SluiceError` with code `build` for a request Sluice refuses (see `HTTPRequest.init(_:)`) or whose
    ///   body is a stream; what the transport throws otherwise.
    public func stream(_ request: URLRequest) async throws -> SluiceCore.HTTPResponse.Streamed {
        guard request.httpBodyStream == nil else {
            throw SluiceError(
                invalidField: .init(
                    endpoint: "URLRequest",
                    field: "httpBodyStream",
                    reason: "\(Self.self) sends bodies of data: a body stream cannot be read without blocking here"
                )
            )
        }
        var head = try HTTPRequest(request)
        let path = head.path ?? "/"
        head.scheme = nil
        head.authority = nil
        guard let url = request.url, var origin = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw SluiceError(
                invalidField: .init(endpoint: "URLRequest", field: "url", reason: "the request has no URL")
            )
        }
        origin.percentEncodedPath = ""
        origin.percentEncodedQuery = nil
        origin.fragment = nil
        guard let baseURL = origin.url else {
            throw SluiceError(
                invalidField: .init(endpoint: "URLRequest", field: "url", reason: "\(url) has no origin to send to")
            )
        }
        let body = request.httpBody.map { OpenAPIRuntime.HTTPBody($0) }
        let operationID = RequestContext.current?.operationName ?? "\(head.method.rawValue) \(path)"
        let (response, responseBody) = try await transport.send(
            head,
            body: body,
            baseURL: baseURL,
            operationID: operationID
        )
        let expectedLength: Int64? =
            switch responseBody?.length {
            case .known(let length): length
            case .unknown: nil
            case nil: 0
            }
        let chunks = SluiceCore.HTTPBody(
            TransportChunks(body: responseBody),
            expectedLength: expectedLength
        )
        let converted = SluiceCore.HTTPResponse(response, url: url)
        return SluiceCore.HTTPResponse.Streamed(
            status: converted.status,
            headers: converted.headers,
            url: url,
            body: chunks
        )
    }
}

/// A runtime body as Sluice's chunks of data; no body is an empty one.
private struct TransportChunks: AsyncSequence, Sendable {
    typealias Element = Data

    let body: OpenAPIRuntime.HTTPBody?

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body?.makeAsyncIterator())
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: OpenAPIRuntime.HTTPBody.AsyncIterator?

        mutating func next() async throws -> Data? {
            guard let chunk = try await chunks?.next() else { return nil }
            return Data(chunk)
        }
    }
}
