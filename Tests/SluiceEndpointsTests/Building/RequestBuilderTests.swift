import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

/// Parameters and headers read through the typed key-path spellings, which the compiler checks.
private struct TypedSearch: Endpoint {
    static let definition = Definition<TypedSearch>(
        method: .post,
        path: "search",
        parameters: [
            .query("q", \.text),
            .query("page", \.page),
            .query("tag", each: \.tags),
            .query("label", each: \.labels),
            .form("token", \.token),
            .form("id", each: \.ids),
        ],
        headers: ["X-Trace": .field(\.trace), "X-Span": .field(\.span)]
    )
    typealias Response = Void

    struct Parameters {
        var text: String
        var page: Int?
        var tags: [String]
        var labels: [String]?
        var token: String
        var ids: [Int?]
    }

    struct HeaderValues {
        var trace: UUID
        var span: String?
    }

    var parameters: Parameters
    var headerValues: HeaderValues
}

/// The seed's spelling, whose key paths are checked when the request is built.
private struct LegacySpelling: Endpoint {
    static let definition = Definition<LegacySpelling>(
        method: .get,
        path: "events",
        parameters: [.query("when", path: \.when)],
        headers: ["X-When": .field(path: \.when)]
    )
    typealias Response = Void

    struct Values {
        var when: Date
    }

    var parameters: Values
    var headerValues: Values
}

/// The seed's header spelling, whose key path is checked when the request is built.
private struct LegacyHeader: Endpoint {
    static let definition = Definition<LegacyHeader>(
        method: .get,
        path: "events",
        headers: ["X-When": .field(path: \.when)]
    )
    typealias Response = Void

    struct HeaderValues {
        var when: Date
    }

    var headerValues: HeaderValues
}

/// Typed query parameters with a nested object and an array of numbers.
private struct ScoredQuery: Encodable, Sendable {
    struct User: Encodable, Sendable {
        var name: String
        var scores: [Double]
    }
    var user: User
}

/// `search`.
private enum SearchPath: RowPath {
    static let path = "search"
}

/// A repository endpoint with every part the builder offers.
private typealias ScoredSearch = RowEndpoint<SearchPath>

private func build(_ endpoint: ScoredSearch) throws -> URLRequest {
    try endpoint.build()
}

@Suite struct RequestBuilderTests {
    @Test func typedKeyPathsBuildTheirParametersAndHeaders() throws {
        let trace = UUID()
        let endpoint = TypedSearch(
            parameters: .init(text: "a b", page: nil, tags: ["x", "y"], labels: nil, token: "t&k", ids: [1, nil, 3]),
            headerValues: .init(trace: trace, span: nil)
        )
        let request = try endpoint.build(on: exampleAPI)
        #expect(request.url?.absoluteString == "https://api.example.com/v2/search?q=a%20b&tag=x&tag=y")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == trace.uuidString)
        #expect(request.value(forHTTPHeaderField: "X-Span") == nil)
        #expect(request.httpBody == Data("token=t%26k&id=1&id=3".utf8))
    }

    @Test func theSeedSpellingStillNamesAValueOfTheWrongTypeWhenBuilt() throws {
        let endpoint = LegacySpelling(parameters: .init(when: Date()), headerValues: .init(when: Date()))
        let error = try requireInvalidField { try endpoint.build(on: exampleAPI) }
        #expect(error.field == "parameters.when")
        #expect(
            String(describing: error)
                == "LegacySpelling.parameters.when: a value of type Date is neither PathRepresentable nor an array of "
                + "such values"
        )
    }

    @Test func theSeedHeaderSpellingStillNamesAValueOfTheWrongTypeWhenBuilt() throws {
        let endpoint = LegacyHeader(headerValues: .init(when: Date()))
        let error = try requireInvalidField { try endpoint.build(on: exampleAPI) }
        #expect(
            String(describing: error) == "LegacyHeader.headers.X-When: a value of type Date is not PathRepresentable"
        )
    }

    @Test func aRepositoryEndpointSendsItsTypedQueryBodyHeadersAndTimeout() throws {
        let query = ScoredQuery(user: .init(name: "Ada", scores: [1.5, 2]))
        let request = try build(
            ScoredSearch(
                method: .post,
                parameters: ["page": 2],
                query: query,
                headers: ["Accept": "application/json"],
                timeout: .seconds(5)
            )
        )
        #expect(
            request.url?.absoluteString
                == "https://api.example.com/v1/search?user%5Bname%5D=Ada&user%5Bscores%5D=1.5&user%5Bscores%5D=2.0"
        )
        #expect(request.httpBody == Data(#"{"page":2}"#.utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(request.timeoutInterval == 5)
    }

    @Test func aQueryValueThatCannotBeSentNamesItsField() throws {
        let query = ScoredQuery(user: .init(name: "Ada", scores: [1, .nan]))
        let error = try requireInvalidField {
            try build(ScoredSearch(method: .get, query: query))
        }
        #expect(error.field == "query.user.scores[1]")
        #expect(
            String(describing: error)
                == "RowEndpoint<SearchPath>.query.user.scores[1]: nan cannot be sent as a parameter; only finite numbers can"
        )
    }

    @Test func aBodyFromParametersAndATypedBodyCannotBothBeSent() throws {
        let error = try requireInvalidField {
            try build(ScoredSearch(method: .post, parameters: ["page": 2], body: ["page": 3] as [String: Int]))
        }
        #expect(
            String(describing: error)
                == "RowEndpoint<SearchPath>.body: the endpoint has parameters for the body and a body; a request carries "
                + "one body"
        )
    }

    @Test func headerNamesThatDifferOnlyInCaseAreRejectedInEveryDialect() throws {
        let headers = ["Accept": "application/json", "accept": "text/plain"]
        let repository = try requireInvalidField {
            try build(ScoredSearch(method: .get, headers: headers))
        }
        #expect(repository.field.hasPrefix("headers."))
        #expect(String(describing: repository).contains("header names are compared ignoring case"))
        let definition = RowAPI(path: "users", method: .GET, headers: headers)
        let api = try requireInvalidField {
            try APIDefinitionRequest(definition, expecting: EmptyResponse.self).build()
        }
        #expect(String(describing: api).contains("sets the header twice"))
    }

    @Test func aTimeoutThatIsNotPositiveFailsInEveryDialect() throws {
        let repository = try requireInvalidField {
            try build(ScoredSearch(method: .get, timeout: .zero))
        }
        #expect(
            String(describing: repository)
                == "RowEndpoint<SearchPath>.timeout: the timeout is 0ns, and must be more than zero"
        )
    }
}
