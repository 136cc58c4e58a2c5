// swift-format-ignore-file
// The code samples of the repository-layer seed, unchanged, in an endpoint definition that holds both; `User` is
// the user-side type they leave out. `static var path: String = ...` is a stored static property, which only
// Swift 5 mode accepts, hence this target's language mode.
import Foundation
import Sluice

struct User: Decodable, Equatable {
    let id: Int
    let login: String
}

struct FollowingEndpoint: EndpointDefinition {
    typealias Response = ArrayResponse<User>

    static var path: String = "/user/following"

    var method: HTTPMethod { .get }
}

// The seed's namespace for endpoint definitions.
extension Endpoints {
    struct Followers: EndpointDefinition {
        typealias Response = ArrayResponse<User>
        static var path: String = "/user/followers"
        static var environment: Environment { .staging }
        var method: HTTPMethod { .GET }
    }
}
