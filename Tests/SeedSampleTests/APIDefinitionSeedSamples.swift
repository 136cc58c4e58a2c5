// swift-format-ignore-file
// The code samples of the enum-based APIDefinition seed, unchanged (so the formatter is kept off this file). The
// seed shows the conformance in fragments, `extension AccountsAPIDefinition: APIDefinition { ... }` and then each
// property; they are assembled here in one extension, each fragment as written.
import Foundation
import Sluice

// Participating request models
struct EditableAccountDetails: Encodable, JSONRepresentable {
    let name: String
    let email: String
}

// All endpoints under /accounts resource
enum AccountsAPIDefinition {
    case details
    case update(details: JSONRepresentable)
}

extension AccountsAPIDefinition: APIDefinition {
    var baseURL: URL {
        return URL(string: "https://myapi.com")!
    }
    
    var path: String {
        "/accounts"
    }

var method: HTTPMethod {
        switch self {
        case .details:
            return .GET
        case .update:
            return .PUT
        }
    }

var encoding: EncodingStrategy {
        switch self {
        case .details:
            return .ignore
        case .update(let details):
            return .jsonBody(parameters: details)
        }
    }

    var headers: [String : String]? {
        return ["Content-Type": "application/json"]
    }
}

// The seed writes the shared requirements as a protocol with bodies, which Swift does not allow; as the seed
// intends, they are a refining protocol and its extension.
protocol TABAPIDefinition: APIDefinition {}

extension TABAPIDefinition {
    var baseURL: URL {
        return URL(string: "https://myapi.com")!
    }

    var headers: [String : String]? {
        return ["Content-Type": "application/json"]
    }
}

// `enum AccountsAPIDefinition: TABAPIDefinition { ... provide only what is required. }`, named apart from the
// first declaration.
enum TABAccountsAPIDefinition: TABAPIDefinition {
    case details

    var path: String { "/accounts" }
    var method: HTTPMethod { .GET }
}
