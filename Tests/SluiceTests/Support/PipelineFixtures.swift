import Foundation
import Sluice

/// Models and requests shared by the pipeline tests.
struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
}

struct APIProblem: Decodable, Equatable, Sendable {
    var message: String
}

struct ListUsers: Request {
    typealias ResponseObject = [User]

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/users"))
    }
}

struct GetUser: Request {
    typealias ResponseObject = User
    var id: Int
    var baseURL = "https://api.example.com"

    func build() throws -> URLRequest {
        URLRequest(url: try testURL(baseURL + "/users/\(id)"))
    }

    func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        try JSONDocumentDecoder().decode(APIProblem.self, from: response.body)
    }
}

struct DeleteUser: Request {
    typealias ResponseObject = Void
    var id: Int

    func build() throws -> URLRequest {
        var request = URLRequest(url: try testURL("https://api.example.com/users/\(id)"))
        request.httpMethod = "DELETE"
        return request
    }
}

struct Avatar: Request {
    typealias ResponseObject = Data

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/avatar.png"))
    }
}

struct Ping: Request {
    typealias ResponseObject = EmptyResponse

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/ping"))
    }
}

/// A response with a JSON body.
func jsonResponse(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
    HTTPResponse(status: status, headers: [.contentType: "application/json"], body: Data(text.utf8))
}

/// A URL from a string known to be valid, or an error naming it.
func testURL(_ string: String) throws -> URL {
    guard let url = URL(string: string) else {
        throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "not a URL: \(string)"])
    }
    return url
}

extension URL {
    /// A URL from a literal known to be valid; a test that gives a bad literal fails at that line.
    init(staticString string: StaticString) {
        guard let url = URL(string: "\(string)") else {
            preconditionFailure("not a URL: \(string)")
        }
        self = url
    }
}
