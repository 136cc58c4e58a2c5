/// The error a ``Client`` throws: which stage of the pipeline failed, and everything that stage knew.
///
/// Every failure reaches the caller as one `SluiceError`, wrapped once, at the stage where it happened:
///
/// | ``code`` | when | what it carries |
/// |---|---|---|
/// | ``Code/build`` | the request could not be built | the underlying error |
/// | ``Code/transport`` | no complete response arrived | the request, the underlying error |
/// | ``Code/status`` | the status was not accepted | the response, the decoded ``errorResponse`` |
/// | ``Code/deserialize`` | the body could not be deserialized | the response, a `JSONError` with line and column |
/// | ``Code/parse`` | the body did not have the expected shape | the response, the JSON path of the problem |
/// | ``Code/cancelled`` | the calling task was cancelled | the ``stage`` it was in |
/// | ``Code/timedOut`` | a time limit ran out | the ``stage`` it was in |
/// | ``Code/handshake``, ``Code/frame``, ``Code/close`` | a ``WebSocket`` broke a rule of RFC 6455 | the request |
///
/// ``description`` renders the error like a compiler diagnostic:
///
/// ```text
/// error: cannot parse the response: expected Int, found string "42"
///   --> GET http://127.0.0.1:8080/users at $[2].id
///   |
///   | status: 200 OK
///   | body: [{"id":1,"name":"Ada"},{"id":2,"name":"Grace"},{"id":"42","name":"Linus"}]
/// ```
///
/// New codes may be added; compare ``code`` against the static members rather than switching exhaustively.
public struct SluiceError: Error, Sendable {
    /// What went wrong.
    ///
    /// An open set: compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case build
            case transport
            case status
            case deserialize
            case parse
            case cancelled
            case timedOut = "timed out"
            case handshake
            case frame
            case close
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The request could not be built; nothing was sent.
        public static let build = Code(.build)
        /// The request was sent but no complete response arrived.
        public static let transport = Code(.transport)
        /// A response arrived with a status the client does not accept.
        public static let status = Code(.status)
        /// The body could not be deserialized.
        public static let deserialize = Code(.deserialize)
        /// The body did not parse into the response object.
        public static let parse = Code(.parse)
        /// The calling task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// A time limit ran out.
        public static let timedOut = Code(.timedOut)
        /// A WebSocket's opening handshake failed: the server did not switch protocols as RFC 6455 asks.
        public static let handshake = Code(.handshake)
        /// A WebSocket frame or message broke RFC 6455 or a configured limit.
        public static let frame = Code(.frame)
        /// A WebSocket's connection ended without a clean closing handshake, or with a code that is not normal.
        public static let close = Code(.close)

        /// The code's name, such as `timed out`.
        public var description: String { base.rawValue }
    }

    /// A stage of the pipeline.
    ///
    /// An open set: compare against the static members.
    public struct Stage: Sendable, Hashable, CustomStringConvertible {
        /// The code of a failure in this stage: each stage is named as the code of a failure in it.
        private let code: Code

        /// Building the `URLRequest`.
        public static let build = Stage(code: .build)
        /// Sending the request and receiving the response.
        public static let transport = Stage(code: .transport)
        /// Validating the response status.
        public static let status = Stage(code: .status)
        /// Deserializing the body.
        public static let deserialize = Stage(code: .deserialize)
        /// Parsing the deserialized body into the response object.
        public static let parse = Stage(code: .parse)
        /// A WebSocket's opening handshake.
        public static let handshake = Stage(code: .handshake)
        /// Reading or writing a WebSocket's frames.
        public static let frame = Stage(code: .frame)
        /// A WebSocket's closing handshake.
        public static let close = Stage(code: .close)

        /// The stage's name, such as `deserialize`.
        public var description: String { code.description }
    }

    /// What went wrong.
    public let code: Code
    /// The stage that failed, or that was running when the request was cancelled or timed out.
    public let stage: Stage
    /// A one-line account of the failure, such as `unacceptable status 404 Not Found`.
    public let message: String
    /// The request as built, when the build stage succeeded, with its credentials hidden as the description hides
    /// them: the values of `Authorization`, `Cookie` and the other headers, query items and body fields that
    /// ``Redaction/default`` names are ``Redaction/placeholder``, and so is every credential a performer noted
    /// wherever it appears.
    ///
    /// An error is a value that ends up in logs and crash reports, so it carries no credential a user could print
    /// by accident; the request with its credentials is the caller's own, and Sluice does not hand it back.
    public package(set) var request: URLRequest? {
        get { unredactedRequest.map { redactor.request($0) } }
        set { unredactedRequest = newValue }
    }
    /// The request as built, credentials and all, for the package's own use: what collects the credentials the
    /// description and ``request`` hide.
    package var unredactedRequest: URLRequest?
    /// The response, when one arrived: its status, headers and full body.
    public package(set) var response: HTTPResponse?
    /// The error the failing stage threw, if any.
    public let underlyingError: (any Error)?
    /// The error body decoded by ``Request/errorResponse(from:)`` for an unaccepted status.
    public package(set) var errorResponse: (any Sendable)?
    /// Why the error body did not decode, when ``Request/errorResponse(from:)`` threw; the raw body stays in
    /// ``response``.
    public package(set) var errorResponseDecodingError: (any Error)?
    /// The number of attempts a retrying performer made: 1 when it did not try again.
    ///
    /// An authenticating performer's replay after 401 belongs to the attempt it answers and is not counted apart.
    public package(set) var attempts = 1
    /// Why each attempt before the last failed, in order, when a retrying performer tried again.
    public package(set) var attemptFailures: [String] = []
    /// How long each stage ran until the failure, the failing stage included, and the bytes sent and received.
    ///
    /// Filled in by ``APIClient``; zero for stages that did not run.
    public package(set) var metrics = PipelineMetrics()
    /// The credentials performers sent with the request beyond its headers as built (the request context's),
    /// hidden in the description and in ``request`` with the rest of what ``Redaction/default`` hides.
    package var credentials: [String] = []

    /// Creates an error.
    ///
    /// Clients and test doubles use this; a ``Client`` never throws anything else.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - stage: The stage that failed; by default the stage named like the code, or transport.
    ///   - message: A one-line account; by default one made from the code and the underlying error.
    ///   - request: The request, if it was built.
    ///   - response: The response, if one arrived.
    ///   - underlyingError: The error the stage threw.
    public init(
        _ code: Code,
        stage: Stage? = nil,
        message: String? = nil,
        request: URLRequest? = nil,
        response: HTTPResponse? = nil,
        underlyingError: (any Error)? = nil
    ) {
        let stage = stage ?? SluiceError.defaultStage(for: code)
        self.code = code
        self.stage = stage
        self.unredactedRequest = request
        self.response = response
        self.underlyingError = underlyingError
        self.message =
            message
            ?? SluiceError.defaultMessage(code: code, stage: stage, response: response, underlying: underlyingError)
    }

    /// The response status, when a response arrived.
    public var status: HTTPStatus? { response?.status }

    /// The response headers, when a response arrived.
    public var headers: HTTPHeaders? { response?.headers }

    /// The error body, if it was decoded and is of the given type.
    ///
    /// - Parameter type: The expected type of the error body.
    /// - Returns: The error body, or `nil`.
    public func errorResponse<Body>(as type: Body.Type) -> Body? {
        errorResponse as? Body
    }

    /// The JSON path of a parse failure, such as `$.items[2].id`, when the parse stage threw a `DecodingError`.
    public var jsonPath: String? {
        guard let decodingError = underlyingError as? DecodingError else { return nil }
        return JSONPath.render(SluiceError.fullPath(of: decodingError))
    }

    /// The location of a failure to parse the body as JSON, when the body was not valid JSON.
    ///
    /// The deserialize stage's parser throws the `JSONError` itself; a decoder that parses the bytes in the parse
    /// stage, as `JSONDocumentDecoder`'s `decode(_:from:)` does from `Data`, throws it under a
    /// `DecodingError.dataCorrupted`, where it is found as well.
    public var jsonError: JSONError? { underlyingError.flatMap(SluiceError.jsonError(in:)) }

    /// The start of the response body as text, redacted as ``Redaction/default`` redacts a log, at most 512 bytes of
    /// whole characters, for messages; `nil` when there is no body.
    ///
    /// No credential the exchange carried (see ``Redaction``) appears in it.
    public var bodyExcerpt: String? {
        excerpt(redactedBy: redactor)
    }

    /// The body excerpt, redacted by a redactor already made for this error.
    func excerpt(redactedBy redactor: Redactor) -> String? {
        guard let body = response?.body, !body.isEmpty else { return nil }
        let text = redactor.body(body, limit: SluiceError.excerptLimit)
        return String(text.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) })
    }

    /// What hides this error's credentials in its description, reading no more of each body than the excerpt's
    /// window, so that a description takes memory bounded by its excerpts, not by the bodies.
    var redactor: Redactor {
        Redactor(
            .default,
            request: unredactedRequest,
            response: response,
            credentials: credentials,
            bodyWindow: Redactor.excerptWindow(limit: SluiceError.excerptLimit)
        )
    }

    /// The most characters of the response body a description shows.
    static let excerptLimit = 512

    /// Returns this error with the request and response filled in where it lacks them; an error already
    /// carrying them is returned unchanged.
    package func adding(request: URLRequest?, response: HTTPResponse?) -> SluiceError {
        var copy = self
        copy.unredactedRequest = copy.unredactedRequest ?? request
        copy.response = copy.response ?? response
        return copy
    }

    private static func defaultStage(for code: Code) -> Stage {
        switch code {
        case .build: .build
        case .status: .status
        case .deserialize: .deserialize
        case .parse: .parse
        case .handshake: .handshake
        case .frame: .frame
        case .close: .close
        default: .transport
        }
    }

    /// The ``JSONError`` an error is or carries: a `DecodingError.dataCorrupted` for bytes that are not JSON, as
    /// `JSONDocumentDecoder` throws it, has it as its underlying error.
    static func jsonError(in error: any Error) -> JSONError? {
        switch error {
        case let jsonError as JSONError:
            jsonError
        case DecodingError.dataCorrupted(let context):
            context.underlyingError as? JSONError
        default:
            nil
        }
    }

    package static func fullPath(of error: DecodingError) -> [any CodingKey] {
        switch error {
        case .keyNotFound(let key, let context): context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath
        @unknown default: []
        }
    }
}
