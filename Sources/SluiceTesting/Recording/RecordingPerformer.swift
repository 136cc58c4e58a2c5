public import Sluice

/// A performer that sends requests with a real one and writes each exchange to a fixture file, for a
/// ``ReplayingPerformer`` to serve later without a network.
///
/// ```swift
/// let recorder = RecordingPerformer(base: NetworkRequestPerformer(), directory: fixtures)
/// let client = APIClient(requestPerformer: recorder)
/// ```
///
/// Each exchange is one JSON file, numbered in the order the responses arrived: the request's method, URL, headers
/// and body, and the response's status, headers and body. Secrets never reach the file: header values, JSON
/// values and query items named by the ``Sluice/Redaction`` (by default `Authorization`, `Proxy-Authorization`,
/// `Cookie` and `Set-Cookie`) are written as `<redacted>`, in the request and in the response.
public final class RecordingPerformer: RequestPerformer {
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
    ///   - redaction: What the fixtures hide; ``Sluice/Redaction/default`` by default.
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
        let fixture = Fixture(
            method: request.httpMethod ?? "GET",
            url: redaction.url(request.url),
            request: Fixture.Message(
                headers: redacted(request.allHTTPHeaderFields ?? [:]),
                body: Data(redaction.body(request.httpBody ?? Data(), limit: .max).utf8)
            ),
            status: response.status.code,
            response: Fixture.Message(
                headers: redacted(response.headers.dictionary),
                body: redactedBody(response.body)
            )
        )
        let number = counter.withLock { counter in
            counter += 1
            return counter
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name =
            String(format: "%04d", number) + "-" + fixture.method + "-"
            + (request.url?.path ?? "").split(separator: "/").joined(separator: "_") + ".json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(fixture).write(to: directory.appendingPathComponent(name), options: .atomic)
        return response
    }

    private func redacted(_ headers: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: headers.map { ($0.key, redaction.value($0.value, of: Header($0.key))) })
    }

    /// A JSON or text body with its hidden values replaced; any other body as it is.
    private func redactedBody(_ body: Data) -> Data {
        guard String(data: body, encoding: .utf8) != nil else { return body }
        return Data(redaction.body(body, limit: .max).utf8)
    }
}
