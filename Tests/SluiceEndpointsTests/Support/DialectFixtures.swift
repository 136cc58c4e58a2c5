import ClientFixtures
import Foundation
import SluiceEndpoints

// One endpoint type per dialect, generic over what differs from row to row of the dialect table, so that each row
// states its shape once per dialect in a line or two.

/// The base URL every row of the dialect table builds on.
let dialectBaseURL = URL(staticString: "https://api.example.com/v1")

/// The server of the declarative rows.
let dialectServer = Server([.production: dialectBaseURL])

/// The values a declarative row's path, parameters and headers read.
struct RowValues: Sendable {
    var id = ""
    var q: String?
    var page: Int?
    var tags: [String]?
    var trace: String?
}

/// A declarative definition for one row.
protocol EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> { get }
}

/// A declarative endpoint without a body, whose definition is its shape's.
struct ShapedEndpoint<Shape: EndpointShape>: Endpoint {
    typealias Response = EmptyResponse
    typealias PathComponents = RowValues
    typealias Parameters = RowValues
    typealias HeaderValues = RowValues

    static var definition: Definition<Self> { Shape.definition }

    var pathComponents = RowValues()
    var parameters = RowValues()
    var headerValues = RowValues()
}

/// A declarative definition for one row with a body.
protocol BodyShape {
    static var definition: Definition<BodyEndpoint<Self>> { get }
}

/// A declarative endpoint with a JSON body, whose definition is its shape's.
struct BodyEndpoint<Shape: BodyShape>: Endpoint {
    typealias Response = EmptyResponse

    static var definition: Definition<Self> { Shape.definition }

    var body: Payload
}

/// A declarative endpoint with a multipart body of a fixed boundary, so that its bytes can be compared.
struct MultipartEndpoint: Endpoint {
    static let definition = Definition<MultipartEndpoint>(method: .post, path: "avatar")
    typealias Response = EmptyResponse

    var body: MultipartForm
    var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder(boundary: "row-boundary") }
}

/// The JSON body of the table's rows.
struct Payload: Codable, Sendable, JSONRepresentable {
    struct Address: Codable, Sendable {
        var city: String
        var zip: String?
    }

    var name: String
    var age: Int?
    var tags: [String]?
    var address: Address?
}

/// The typed query parameters of the table's rows, in the order of their names, as every dialect sorts them.
struct RowQuery: Codable, Sendable, JSONRepresentable {
    struct Filter: Codable, Sendable {
        var status: String
        var since: Int?
    }

    struct Item: Codable, Sendable {
        var id: Int
    }

    var filter: Filter?
    var items: [Item]?
    var page: Int?
    var q: String?
    var tags: [String]?
}

/// An enum-based definition as a struct holding each requirement, one value per row.
struct RowAPI: APIDefinition {
    var baseURL = dialectBaseURL
    var path: String
    var method: HTTPMethod
    var encoding: EncodingStrategy = .ignore
    var headers: [String: String]?
    var timeout: Duration?
}

/// The static path of a repository row.
protocol RowPath {
    static var path: String { get }
}

/// A repository endpoint whose path is its row's.
struct RowEndpoint<Path: RowPath>: EndpointDefinition {
    typealias Response = EmptyResponse

    static var path: String { Path.path }

    var method: HTTPMethod
    var parameters: [String: Any] = [:]
    var query: (any Encodable & Sendable)?
    var body: (any Encodable & Sendable)?
    var headers: [String: String] = [:]
    var timeout: Duration?

    /// The request the repository builds for it.
    func build() throws -> URLRequest {
        try GenericRequest(self, baseURL: dialectBaseURL).build()
    }
}

/// `users`.
enum UsersPath: RowPath {
    static let path = "users"
}

/// `/users`, with the leading slash that does not replace the base URL's path.
enum SlashUsersPath: RowPath {
    static let path = "/users"
}

/// A segment holding a slash and a space, percent-encoded as the declarative dialect encodes it.
enum EncodedSegmentPath: RowPath {
    static let path = "files/a%2Fb%20c"
}

/// A segment holding letters outside ASCII, percent-encoded as the declarative dialect encodes it.
enum UnicodeSegmentPath: RowPath {
    static let path = "files/%C3%BCn%C3%AF"
}

/// `users/7`.
enum UserPath: RowPath {
    static let path = "users/7"
}
