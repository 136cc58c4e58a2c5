/// A performer behind a private HTTP cache (RFC 9111, RFC 5861): it answers from its ``HTTPCache`` what a stored
/// response may answer, validates with the origin what must be validated, and stores what may be stored.
///
/// ```swift
/// let cache = HTTPCache(store: .memory(limit: 20 << 20))
/// let client = APIClient(requestPerformer: SocketRequestPerformer().retrying().cached(in: cache))
/// let user = try await client.response(for: GetUser(id: 42))
/// print(user.cacheOutcome ?? "not cached")  // hit, miss, revalidated, stale-hit (stale-while-revalidate), ...
/// ```
///
/// `GET` responses are stored; a `HEAD` is answered from a stored `GET` and its response updates one (4.3.5); a
/// successful unsafe request (`POST`, `PUT`, `PATCH`, `DELETE`, ...) invalidates its target and the same-origin
/// `Location` and `Content-Location` (4.4). Every response carries the cache's ``HTTPCache/Outcome`` in a
/// `Cache-Status` field. A streamed body (``stream(_:)``) is stored as it passes through, up to
/// ``HTTPCache/maximumEntrySize``, and never gathered whole for the cache's sake.
///
/// `Vary` is matched on the request as the base performer would send it (``RequestPerformer/requestAsSent(_:)``), with
/// the cookies of its store and the other fields it adds, so that clients with cookies of their own may share one
/// cache; a response is not stored when the request the transport reports it sent differs there (see
/// <doc:HTTPCaching#Variants-and-the-request-as-sent>).
///
/// Put it outside a retrying performer, so that a hit costs no attempt, and inside an observing one, so that events
/// see what the cache did. A `stale-while-revalidate` response starts one revalidation in the background, under a
/// ``RequestContext`` of its own.
public struct CachingPerformer: WrappingPerformer {
    /// The performer that reaches the origin.
    public let base: any RequestPerformer
    /// The cache.
    public let cache: HTTPCache

    /// Creates a caching performer.
    ///
    /// - Parameters:
    ///   - base: The performer that reaches the origin.
    ///   - cache: The cache.
    public init(base: any RequestPerformer, cache: HTTPCache) {
        self.base = base
        self.cache = cache
    }

    /// Answers a request from the cache, or from the origin through the base performer.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, with its ``HTTPResponse/cacheOutcome``.
    /// - Throws: What the base performer throws, unless `stale-if-error` allows a stored response instead.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let base = self.base
        let asSent = base.requestAsSent(request)
        let answer = try await CacheExchange(cache: cache, request: request, asSent: asSent) { request in
            CacheAnswer(try await base.perform(request))
        }.traced()
        return HTTPResponse(
            status: answer.status,
            headers: answer.headers,
            body: try await answer.body.collect(),
            url: answer.url
        )
    }

    /// Answers a request from the cache, or streams it from the origin, storing its body as it passes through.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response, with its ``HTTPResponse/Streamed/cacheOutcome``.
    /// - Throws: What the base performer throws, unless `stale-if-error` allows a stored response instead.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let base = self.base
        let asSent = base.requestAsSent(request)
        let answer = try await CacheExchange(cache: cache, request: request, asSent: asSent) { request in
            let response = try await base.stream(request)
            return CacheAnswer(
                status: response.status,
                headers: response.headers,
                url: response.url,
                body: .stream(response.body)
            )
        }.traced()
        return HTTPResponse.Streamed(
            status: answer.status,
            headers: answer.headers,
            url: answer.url,
            body: answer.body.httpBody
        )
    }
}

/// A response on its way through the cache, its body in memory or still arriving.
struct CacheAnswer: Sendable {
    var status: HTTPStatus
    var headers: HTTPHeaders
    var url: URL?
    var body: CachedBody

    init(status: HTTPStatus, headers: HTTPHeaders, url: URL?, body: CachedBody) {
        self.status = status
        self.headers = headers
        self.url = url
        self.body = body
    }

    init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers, url: response.url, body: .data(response.body))
    }

    /// This answer with the cache's outcome added to its `Cache-Status`.
    func marked(_ kind: HTTPCache.Outcome.Kind, _ detail: String? = nil) -> CacheAnswer {
        var copy = self
        copy.headers.add(HTTPCache.Outcome(kind, detail: detail).cacheStatusMember, for: Header("Cache-Status"))
        return copy
    }
}
