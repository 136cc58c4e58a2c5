/// A declarative endpoint: its types say what it sends and receives, and a static ``Definition`` says how they
/// go together.
///
/// An endpoint is a ``Request``, so it runs on the same pipeline as any other:
/// `try await client.perform(DeleteEvent(pathComponents: ...))`.
///
/// ```swift
/// struct SearchUsers: Endpoint {
///     static let definition: Definition<SearchUsers> = Definition(
///         method: .get,
///         path: "orgs/\(path: \.org)/users",
///         parameters: [.query("q", \.text), .queryValue("per_page", value: 50)],
///         headers: [.accept: .fieldValue(value: "application/json")]
///     )
///
///     typealias Response = [User]
///     typealias ErrorResponse = APIProblem
///
///     struct PathComponents { let org: String }
///     struct Parameters { let text: String? }
///
///     let pathComponents: PathComponents
///     let parameters: Parameters
/// }
/// ```
///
/// Every associated type but ``Response`` has a default, and an instance property is needed only when its type
/// is not the default:
///
/// | type | default | instance property |
/// |---|---|---|
/// | ``Response`` | (required) `Decodable`, `Void` or `Data` | |
/// | ``ErrorResponse`` | ``EmptyCodable``: no error body | |
/// | ``Body`` | ``EmptyCodable``: no body | ``body`` |
/// | ``PathComponents`` | `Void` | ``pathComponents`` |
/// | ``Parameters`` | `Void` | ``parameters`` |
/// | ``HeaderValues`` | `Void` | ``headerValues`` |
/// | ``BodyEncoder`` | `JSONEncoder` | ``bodyEncoder`` |
/// | ``ResponseDecoder`` | `JSONDocumentDecoder` | ``responseDecoder`` |
/// | ``ErrorDecoder`` | `JSONDocumentDecoder` | ``errorDecoder`` |
///
/// A `Decodable` response is decoded with ``responseDecoder`` in the pipeline's stages, which the decoder's type
/// chooses when the endpoint type conforms: the endpoint's ``Request/deserializer`` is the decoder's
/// ``DataDecoder/responseDeserializer``, its ``Request/ResponseParser`` the decoder's
/// ``DataDecoder/ResponseParser``, and its ``Request/parse(_:)`` decodes the parser's representation:
///
/// - With `JSONDocumentDecoder`, the default, the deserialize stage parses the JSON with the decoder's own
///   deserializer limits, reading an empty body as `null`, the parser is `JSON`, and the parse stage decodes the
///   document: a malformed body fails with ``SluiceError/Code/deserialize``, a body of another shape with
///   ``SluiceError/Code/parse``.
/// - With any other ``DataDecoder``, such as `JSONDecoder`, the deserialize stage is a ``DataDeserializer``, which
///   hands the bytes on, the parser is `Data`, and the parse stage decodes the bytes with
///   ``DataDecoder/decode(_:from:)``, so it measures, and reports the errors of, the whole decoding, a malformed body
///   included.
///
/// `Void` ignores the body and `Data` receives it unmodified. To split the work between the stages another way,
/// implement `deserializer` and `parse(_:)` in the endpoint.
///
/// An endpoint generic over its decoder gets the stages of the decoder type it is given.
///
/// A response with an unaccepted status decodes ``ErrorResponse`` with ``errorDecoder``; read it typed with
/// ``SluiceError/errorResponse(for:)``.
public protocol Endpoint: Request where ResponseObject == Response, ResponseParser == ResponseDecoder.ResponseParser {
    /// What the server returns: a `Decodable` type, `Void` to ignore the body, or `Data` for the bytes.
    associatedtype Response

    /// What the server returns with an unaccepted status; ``EmptyCodable`` (nothing decoded) by default.
    associatedtype ErrorResponse: Decodable & Sendable = EmptyCodable

    /// What the request sends, encoded by ``BodyEncoder``; ``EmptyCodable`` (no body) by default.
    associatedtype Body: Encodable = EmptyCodable

    /// The values interpolated into the definition's path; `Void` by default.
    associatedtype PathComponents = Void

    /// The values the definition's parameters read; `Void` by default.
    associatedtype Parameters = Void

    /// The values the definition's headers read; `Void` by default.
    associatedtype HeaderValues = Void

    /// The encoder of ``Body``; `JSONEncoder` by default.
    associatedtype BodyEncoder: RequestBody.Encoder = JSONEncoder

    /// The decoder of ``Response``; `JSONDocumentDecoder` by default.
    associatedtype ResponseDecoder: DataDecoder = JSONDocumentDecoder

    /// The decoder of ``ErrorResponse``; `JSONDocumentDecoder` by default.
    associatedtype ErrorDecoder: DataDecoder = JSONDocumentDecoder

    /// How the endpoint's parts go together.
    static var definition: Definition<Self> { get }

    /// The values interpolated into the path.
    var pathComponents: PathComponents { get }

    /// The values the parameters read.
    var parameters: Parameters { get }

    /// The values the headers read.
    var headerValues: HeaderValues { get }

    /// The body to send.
    var body: Body { get }

    /// The encoder of the body.
    var bodyEncoder: BodyEncoder { get }

    /// The decoder of the response.
    var responseDecoder: ResponseDecoder { get }

    /// The decoder of the error response.
    var errorDecoder: ErrorDecoder { get }
}
