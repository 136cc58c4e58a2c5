import Foundation
import SluiceCore

/// A request for raw bytes, with no template (its spans are named by its method), and a header field if given.
struct Fetch: Request {
    typealias ResponseObject = Data
    var url: URL
    var field: (name: String, value: String)?

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        if let field {
            request.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return request
    }
}

/// A request for a user, named by its path's template.
struct GetUser: Request {
    typealias ResponseObject = JSON
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }

    var urlTemplate: String? { "/users/{id}" }
}
