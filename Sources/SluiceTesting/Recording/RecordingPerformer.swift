public import SluiceCore

/// A performer that sends requests with a real one and writes each exchange to a fixture file, for a
/// ``ReplayingPerformer`` to serve later without a network.
///
/// ```swift
/// let recorder = RecordingPerformer(base: NetworkRequestPerformer(), directory: fixtures)
/// let client = APIClient(requestPerformer: recorder)
/// ```
///
/// Each exchange is one JSON file, numbered in the order the responses arrived (`0001-GET-users.json`, four digits
/// or more): the request's method, URL, headers and body, and the response's status, headers and body. No credential
/// reaches the file: the `Redaction` (`Redaction.default` unless you pass another) replaces with
/// `<redacted>` every credential the exchange carried, wherever it appears, in the request and in the response (the
/// values of `Authorization`, `Cookie` and `Set-Cookie`, a URL's password, the credentials a performer noted in the
/// request's context, which it reads when it runs above an `AuthenticatingPerformer`), and the values under
/// hidden names (`password`, `access_token`, `api_key`…) in headers, the query and the bodies.
///
/// Bodies keep their exact bytes: as text under `body` when they are UTF-8, in Base64 under `bodyBase64` otherwise.
/// The one exception is a body in which the redaction hides something: a JSON body re-encoded, compact, with the
/// hidden values replaced; a form body with its hidden fields replaced; other text with the values after hidden names
/// and each credential replaced. Its bytes then differ from the ones sent or received.
public final class RecordingPerformer: WrappingPerformer {
    /// The performer that sends the requests.
    public let base: any RequestPerformer
    /// The directory the fixtures are written to; created if missing.
    public let directory: URL
    /// What the fixtures hide.
    public let redaction: Redaction
    private let counter = Locked(0)

    /// Creates a recording performer.
    ///
    /// - Parameters:
    ///   - base: The performer that sends the requests.
    ///   - directory: The directory the fixtures are written to.
    ///   - redaction: What the fixtures hide; `Redaction.default` by default.
    public init(base: any RequestPerformer, directory: URL, redaction: Redaction = .default) {
        self.base = base
        self.directory = directory
        self.redaction = redaction
    }

    /// Sends a request and records the exchange.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's response, unchanged.
    /// - Throws: What the base performer throws (nothing is recorded then), or an error saying why the fixture
    ///   could not be written.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let response = try await base.perform(request)
        try save(
            request: request,
            response: response,
            chunks: nil,
            credentials: RequestContext.current?.credentials ?? []
        )
        return response
    }

    /// Streams a request through the base performer and records the exchange when the body has been read to its end,
    /// with the sizes of the chunks it arrived in, so that a replay streams it the same way.
    ///
    /// The body's chunks pass through as they arrive; a copy is kept until the end, so record bodies that fit in
    /// memory. A body that fails, or is not read to its end, is not recorded.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base performer's streamed response.
    /// - Throws: What the base performer throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let response = try await base.stream(request)
        let credentials = RequestContext.current?.credentials ?? []
        let head = HTTPResponse(status: response.status, headers: response.headers, url: response.url)
        let body = response.body
        let recording = AsyncThrowingStream<Data, any Error> { continuation in
            let reader = Task {
                var received = Data()
                var sizes: [Int] = []
                do {
                    for try await chunk in body {
                        received.append(chunk)
                        sizes.append(chunk.count)
                        continuation.yield(chunk)
                    }
                    var whole = head
                    whole.body = received
                    try self.save(request: request, response: whole, chunks: sizes, credentials: credentials)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
        return response.replacingBody(
            with: HTTPBody(recording, expectedLength: body.expectedLength).reportingTrailers(of: body)
        )
    }

    /// Writes an exchange to the next fixture file, with what the redaction hides hidden.
    private func save(request: URLRequest, response: HTTPResponse, chunks: [Int]?, credentials: [String]) throws {
        let redactor = Redactor(redaction, request: request, response: response, credentials: credentials)
        let fixture = Fixture(
            method: request.httpMethod ?? "GET",
            url: redactor.url(request.url),
            request: Fixture.Message(
                headers: redacted(request.allHTTPHeaderFields ?? [:], by: redactor),
                body: redactor.recorded(request.httpBody ?? Data())
            ),
            status: response.status.code,
            response: Fixture.Message(
                headers: redacted(response.headers.dictionary, by: redactor),
                body: redactor.recorded(response.body)
            ),
            chunks: chunks
        )
        let number = counter.withLock { counter in
            counter += 1
            return counter
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name =
            String(format: "%04d", number) + "-" + fixture.method + "-"
            + (URLComponents(string: fixture.url)?.path ?? "").split(separator: "/").joined(separator: "_") + ".json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(fixture).write(to: directory.appendingPathComponent(name), options: .atomic)
    }

    private func redacted(_ headers: [String: String], by redactor: Redactor) -> [String: String] {
        Dictionary(uniqueKeysWithValues: headers.map { ($0.key, redactor.header($0.value, of: Header($0.key))) })
    }
}
