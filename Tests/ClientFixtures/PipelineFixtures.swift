package import Foundation
package import SluiceCore

/// Models and requests shared by the pipeline tests.
package struct User: Codable, Equatable, Sendable {
    package var id: Int
    package var name: String

    package init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

package struct APIProblem: Decodable, Equatable, Sendable {
    package var message: String

    package init(message: String) {
        self.message = message
    }
}

package struct ListUsers: Request {
    package init() {}

    package typealias ResponseObject = [User]

    package func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/users"))
    }
}

package struct GetUser: Request {
    package typealias ResponseObject = User
    package var id: Int
    package var baseURL = "https://api.example.com"

    package init(id: Int, baseURL: String = "https://api.example.com") {
        self.id = id
        self.baseURL = baseURL
    }

    package func build() throws -> URLRequest {
        URLRequest(url: try testURL(baseURL + "/users/\(id)"))
    }

    package func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        try JSONDocumentDecoder().decode(APIProblem.self, from: response.body)
    }
}

package struct DeleteUser: Request {
    package typealias ResponseObject = Void
    package var id: Int

    package init(id: Int) {
        self.id = id
    }

    package func build() throws -> URLRequest {
        var request = URLRequest(url: try testURL("https://api.example.com/users/\(id)"))
        request.httpMethod = "DELETE"
        return request
    }
}

package struct Avatar: Request {
    package init() {}

    package typealias ResponseObject = Data

    package func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/avatar.png"))
    }
}

package struct Ping: Request {
    package init() {}

    package typealias ResponseObject = EmptyResponse

    package func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/ping"))
    }
}

/// A request for a URL whose body is ignored.
package struct Raw: Request {
    package typealias ResponseObject = Data
    package var url: URL
    package var timeout: TimeInterval = 60

    package init(url: URL, timeout: TimeInterval = 60) {
        self.url = url
        self.timeout = timeout
    }

    package func build() throws -> URLRequest {
        URLRequest(url: url, timeoutInterval: timeout)
    }
}

/// A response with a JSON body.
package func jsonResponse(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
    HTTPResponse(status: status, headers: [.contentType: "application/json"], body: Data(text.utf8))
}

/// A URL from a string known to be valid, or an error naming it.
package func testURL(_ string: String) throws -> URL {
    guard let url = URL(string: string) else {
        throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "not a URL: \(string)"])
    }
    return url
}

extension URL {
    /// A URL from a literal known to be valid; a test that gives a bad literal fails at that line.
    package init(staticString string: StaticString) {
        guard let url = URL(string: "\(string)") else {
            preconditionFailure("not a URL: \(string)")
        }
        self = url
    }
}
