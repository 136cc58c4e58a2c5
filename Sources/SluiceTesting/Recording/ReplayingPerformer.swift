public import SluiceCore

/// A performer that answers requests from the fixtures a ``RecordingPerformer`` wrote, without a network.
///
/// ```swift
/// let client = APIClient(requestPerformer: try ReplayingPerformer(directory: fixtures))
/// ```
///
/// A request matches a fixture with the same method and URL (compared after the same redaction, since the file
/// holds the redacted URL). Fixtures recorded for the same method and URL answer in the order they were recorded,
/// that is of the number their names start with (`9999-…` before `10000-…`), and the last one answers again after
/// that; files whose names start with no number come after the numbered ones, in the order of their names. A
/// request without a fixture fails at once with an error that lists the fixtures there are.
public final class ReplayingPerformer: RequestPerformer {
    /// The directory the fixtures were read from.
    public let directory: URL
    private let redaction: Redaction
    private let fixtures: [String: [Fixture]]
    private let served = Locked<[String: Int]>([:])

    /// Loads the fixtures of a directory.
    ///
    /// - Parameters:
    ///   - directory: The directory a ``RecordingPerformer`` wrote to.
    ///   - redaction: The redaction the recording used; `Redaction.default` by default.
    /// - Throws: An error naming the file that cannot be read or decoded.
    public init(directory: URL, redaction: Redaction = .default) throws {
        self.directory = directory
        self.redaction = redaction
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
            .sorted(by: ReplayingPerformer.recordingOrder)
        var fixtures: [String: [Fixture]] = [:]
        for name in names {
            let file = directory.appendingPathComponent(name)
            let fixture: Fixture
            do {
                // Parsed apart from the decoding, so that a file that is not JSON is reported with its line and column.
                fixture = try JSONDocumentDecoder().decode(Fixture.self, from: JSON(parsing: Data(contentsOf: file)))
            } catch {
                throw SluiceTestingError(
                    .missingFixture,
                    "the fixture \(name) cannot be read: \(error)"
                )
            }
            fixtures[ReplayingPerformer.key(fixture.method, fixture.url), default: []].append(fixture)
        }
        self.fixtures = fixtures
    }

    private static func key(_ method: String, _ url: String) -> String {
        "\(method) \(url)"
    }

    /// Whether one fixture file was recorded before another: by the number the names start with, numbered files
    /// first, then by name.
    private static func recordingOrder(_ first: String, _ second: String) -> Bool {
        switch (number(of: first), number(of: second)) {
        case (let left?, let right?) where left != right: left < right
        case (_?, nil): true
        case (nil, _?): false
        default: first < second
        }
    }

    /// The number a fixture's name starts with, as a ``RecordingPerformer`` writes it: `12` for `0012-GET-users.json`.
    private static func number(of name: String) -> Int? {
        Int(name.prefix { $0.isASCII && $0.isNumber })
    }

    /// Answers a request with its recorded response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The recorded status, headers and body.
    /// - Throws: ``SluiceTestingError`` when no fixture was recorded for the request's method and URL.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try fixture(for: request).response
    }

    /// Answers a request from its recording, streaming the body in the chunks it was recorded in (one chunk for a
    /// response recorded buffered).
    ///
    /// - Parameter request: The request.
    /// - Returns: The recorded response, streamed.
    /// - Throws: ``SluiceTestingError`` when no fixture matches.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let (response, chunks) = try fixture(for: request)
        guard let chunks else {
            return HTTPResponse.Streamed(response)
        }
        let (body, writer) = HTTPBody.makeStream(expectedLength: Int64(response.body.count))
        for part in Fixture.split(response.body, into: chunks) {
            writer.write(part)
        }
        writer.finish()
        return HTTPResponse.Streamed(status: response.status, headers: response.headers, url: response.url, body: body)
    }

    /// The next recorded response for a request, and the sizes of the chunks its body was streamed in.
    private func fixture(for request: URLRequest) throws -> (response: HTTPResponse, chunks: [Int]?) {
        let url = Redactor(redaction, request: request, readingBodies: false).url(request.url)
        let key = ReplayingPerformer.key(request.httpMethod ?? "GET", url)
        guard let recorded = fixtures[key], !recorded.isEmpty else {
            let known = fixtures.keys.sorted().map { "  \($0)" }.joined(separator: "\n")
            throw SluiceTestingError(
                .missingFixture,
                "no fixture in \(directory.path) for \(key); the fixtures are for:\n"
                    + (known.isEmpty ? "  (none)" : known)
            )
        }
        let index = served.withLock { served in
            defer { served[key, default: 0] += 1 }
            return min(served[key, default: 0], recorded.count - 1)
        }
        let fixture = recorded[index]
        var headers = HTTPHeaders()
        for (name, value) in fixture.response.headers.sorted(by: { $0.key < $1.key }) {
            headers.add(value, for: Header(name))
        }
        let response = HTTPResponse(
            status: HTTPStatus(code: fixture.status),
            headers: headers,
            body: fixture.response.data,
            url: request.url
        )
        return (response, fixture.chunks)
    }
}
