import ClientFixtures
import Foundation
import SluiceEndpoints
import SluiceTesting
import Testing

private let billing = Server([.production: URL(staticString: "https://billing.example.com/api")])

/// An endpoint whose definition names its own server.
private struct GetInvoice: Endpoint {
    static let definition: Definition<GetInvoice> = Definition(
        server: billing,
        method: .get,
        path: "invoices/\(path: \.id)"
    )
    typealias Response = Void
    struct PathComponents {
        var id: Int
    }
    var pathComponents: PathComponents
}

/// Fixed values that are `nil` optionals, in the query and in the form.
private struct Subscribe: Endpoint {
    static let definition: Definition<Subscribe> = Definition(
        method: .post,
        path: "subscriptions",
        parameters: [
            .queryValue("since", value: Int?.none),
            .queryValue("plan", value: "basic"),
            .queryValue("coupon", value: String??.some(nil)),
            .formValue("note", value: String?.none),
            .formValue("email", value: "ada@example.com"),
            .formValue("referrer", value: Int?.some(7)),
        ]
    )
    typealias Response = Void
}

/// A form of text and arrays, with the array style given.
private struct Profile<Style: ArrayStyle>: Endpoint {
    static var definition: Definition<Profile> {
        Definition(
            method: .post,
            path: "profile",
            parameters: [.form("name", path: \.name), .form("tags", path: \.tags), .form("scores", path: \.scores)],
            queryEncoding: QueryEncoding(arrays: Style.arrays)
        )
    }
    typealias Response = Void
    struct Parameters {
        var name: String
        var tags: [String]
        var scores: [Int?]
    }
    var parameters: Parameters
}

private protocol ArrayStyle {
    static var arrays: QueryEncoding.Arrays { get }
}

private enum Repeated: ArrayStyle {
    static let arrays = QueryEncoding.Arrays.repeatedKey
}

private enum Brackets: ArrayStyle {
    static let arrays = QueryEncoding.Arrays.brackets
}

private enum Commas: ArrayStyle {
    static let arrays = QueryEncoding.Arrays.commaSeparated
}

@Suite struct EndpointParameterTests {
    @Test func leavesOutFixedValuesThatAreNil() throws {
        let request = try Subscribe().build(on: exampleAPI)
        #expect(request.url?.absoluteString == "https://api.example.com/v2/subscriptions?plan=basic")
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == "email=ada%40example.com&referrer=7")
    }

    @Test func encodesAFormWithUnicodeTextAndArrays() throws {
        let parameters = Profile<Repeated>.Parameters(
            name: "Zoë Ångström ☕ 日本",
            tags: ["a b", "ç+d", "&="],
            scores: [1, nil, 3]
        )
        let repeated = try Profile<Repeated>(parameters: parameters).build(on: exampleAPI)
        #expect(repeated.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            repeated.httpBody.map { String(decoding: $0, as: UTF8.self) }
                == "name=Zo%C3%AB+%C3%85ngstr%C3%B6m+%E2%98%95+%E6%97%A5%E6%9C%AC"
                + "&tags=a+b&tags=%C3%A7%2Bd&tags=%26%3D&scores=1&scores=3"
        )
        let brackets = try Profile<Brackets>(parameters: .init(name: "é", tags: ["x y"], scores: [])).build(
            on: exampleAPI
        )
        #expect(brackets.httpBody.map { String(decoding: $0, as: UTF8.self) } == "name=%C3%A9&tags%5B%5D=x+y")
        let commas = try Profile<Commas>(parameters: .init(name: "ü", tags: ["x y", "ö,p"], scores: [2])).build(
            on: exampleAPI
        )
        #expect(
            commas.httpBody.map { String(decoding: $0, as: UTF8.self) } == "name=%C3%BC&tags=x+y,%C3%B6%2Cp&scores=2"
        )
    }

    @Test func routesAnEndpointToTheServerItsDefinitionNames() async throws {
        let endpoint = GetInvoice(pathComponents: .init(id: 42))
        try await Server.withDefault(exampleAPI) {
            #expect(try endpoint.build().url?.absoluteString == "https://billing.example.com/api/invoices/42")
            let stub = StubPerformer(always: HTTPResponse(status: .noContent, headers: [:], body: Data()))
            try await APIClient(requestPerformer: stub).perform(endpoint)
            #expect(stub.requests.map { $0.url?.absoluteString } == ["https://billing.example.com/api/invoices/42"])
        }
        #expect(try endpoint.build(on: exampleAPI).url?.absoluteString == "https://api.example.com/v2/invoices/42")
    }
}
