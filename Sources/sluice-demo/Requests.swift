import Foundation
import Sluice

struct User: Codable, Sendable {
    var id: Int
    var name: String
    var email: String?
    var joinedAt: Date
}

struct NewUser: Encodable {
    var name: String
    var email: String
    var joinedAt: Date
}

struct Problem: Decodable, Sendable, CustomStringConvertible {
    var message: String
    var description: String { "Problem(message: \"\(message)\")" }
}

/// Requests of the directory service: they share a base URL, a decoder and the error body.
protocol DirectoryRequest: Request where ResponseObject: Decodable, ResponseParser == JSON {
    var baseURL: URL { get }
}

extension DirectoryRequest {
    static var decoder: JSONDocumentDecoder {
        JSONDocumentDecoder(dateDecodingStrategy: .iso8601, keyDecodingStrategy: .convertFromSnakeCase)
    }

    func parse(_ json: JSON) throws -> ResponseObject {
        try Self.decoder.decode(ResponseObject.self, from: json)
    }

    func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        try Self.decoder.decode(Problem.self, from: response.body)
    }

    func get(_ path: String) -> URLRequest {
        URLRequest(url: baseURL.appendingPathComponent(path))
    }
}

struct ListUsers: DirectoryRequest {
    typealias ResponseObject = [User]
    var baseURL: URL
    func build() throws -> URLRequest { get("users") }
}

struct CreateUser: DirectoryRequest {
    typealias ResponseObject = User
    var baseURL: URL
    var user: NewUser

    func build() throws -> URLRequest {
        var request = get("users")
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        request.httpBody = try encoder.encode(user)
        return request
    }
}

struct GetUser: DirectoryRequest {
    typealias ResponseObject = User
    var baseURL: URL
    var id: Int
    func build() throws -> URLRequest { get("users/\(id)") }
}

struct SlowReport: DirectoryRequest {
    typealias ResponseObject = [String: Int]
    var baseURL: URL
    func build() throws -> URLRequest { get("reports/slow") }
}

struct Broken: DirectoryRequest {
    typealias ResponseObject = User
    var baseURL: URL
    func build() throws -> URLRequest { get("broken") }
}

struct PriceFeed: DirectoryRequest {
    typealias ResponseObject = Data
    var baseURL: URL
    func build() throws -> URLRequest { get("prices") }
}

struct Price: Decodable {
    let symbol: String
    let price: Double
}

struct GetArchive: DirectoryRequest {
    typealias ResponseObject = Data
    var baseURL: URL
    func build() throws -> URLRequest { get("archive") }
}
