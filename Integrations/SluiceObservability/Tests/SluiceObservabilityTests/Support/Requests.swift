import Foundation
import SluiceCore

/// A request for raw bytes, with no template: its spans are named by its method.
struct Fetch: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

/// A request for a user, named by its path's template.
struct GetUser: Request {
    typealias ResponseObject = JSON
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }

    var urlTemplate: String? { "/users/{id}" }
}
