// swift-format-ignore-file: NeverForceUnwrap

// The README's snippets, verbatim, each run against a stub performer or a mock client; `everySnippetIsCopiedHere`
// checks that they still are verbatim. The one force unwrap is the README's: an `APIDefinition`'s `baseURL` is not
// optional, and its URL is a literal.
import Foundation
import Sluice
import SluiceTesting
import Testing

@Suite struct ReadmeSnippetsTests {
    // MARK: - The first example

    struct User: Decodable { let name: String }

    struct GetUser: Endpoint {
        static let definition: Definition<GetUser> = Definition(method: .get, path: "users/\(path: \.id)")
        typealias Response = User
        struct PathComponents { let id: Int }
        let pathComponents: PathComponents
    }

    /// The first example as written, compiled but not run.
    ///
    /// It changes the process-wide default server, which tests running in parallel share, and sends its request to
    /// the network; `firstExample(on:)` runs the same lines.
    static func firstExample() async throws {
        Server.default.setBaseURL(URL(string: "https://api.example.com"), for: .production)
        let client = APIClient()
        let user = try await client.perform(GetUser(pathComponents: .init(id: 42)))
        print(user.name)
    }

    /// The first example on the default server of the calling task (scoped with `Server.withDefault`) and a client
    /// the test passes in.
    static func firstExample(on client: APIClient) async throws {
        Server.default.setBaseURL(URL(string: "https://api.example.com"), for: .production)
        let user = try await client.perform(GetUser(pathComponents: .init(id: 42)))
        print(user.name)
    }

    @Test func firstExampleGetsTheUserFromItsTypedPath() async throws {
        let stub = StubPerformer.json(#"{"name": "Ada"}"#)
        let printed = try await Server.withDefault(Server()) {
            try await SnippetOutput.collect {
                try await Self.firstExample(on: APIClient(requestPerformer: stub))
            }
        }
        #expect(printed == ["Ada"])
        let sent = try #require(stub.requests.first)
        #expect(sent.httpMethod == "GET")
        #expect(sent.url?.absoluteString == "https://api.example.com/users/42")
    }

    // MARK: - Four ways to describe an endpoint

    struct ListUsers: Request {
        typealias ResponseObject = [User]

        func build() throws -> URLRequest {
            guard let url = URL(string: "https://api.example.com/users") else { throw URLError(.badURL) }
            return URLRequest(url: url)
        }
    }

    struct SearchUsers: Endpoint {
        static let definition: Definition<SearchUsers> = Definition(
            method: .get,
            path: "orgs/\(path: \.org)/users",
            parameters: [.query("q", \.text), .queryValue("per_page", value: 50)]
        )
        typealias Response = [User]
        struct PathComponents { let org: String }
        struct Parameters { let text: String? }
        let pathComponents: PathComponents
        let parameters: Parameters
    }

    struct NewUser: JSONRepresentable { let name: String }

    enum UsersAPI: APIDefinition {
        case list
        case create(NewUser)

        var baseURL: URL { URL(string: "https://api.example.com")! }
        var path: String { "/users" }
        var method: HTTPMethod {
            switch self {
            case .list: .GET
            case .create: .POST
            }
        }
        var encoding: EncodingStrategy {
            switch self {
            case .list: .ignore
            case .create(let user): .jsonBody(parameters: user)
            }
        }
    }

    static func createAda(client: APIClient) async throws -> User {
        let ada = try await client.perform(UsersAPI.create(NewUser(name: "Ada")), expecting: User.self)
        return ada
    }

    struct Followers: EndpointDefinition {
        typealias Response = ArrayResponse<User>
        static let path = "/user/followers"
        var method: HTTPMethod { .get }
    }

    static func followers(client: APIClient) async throws -> [User] {
        let repository = Repository(client: client, server: Server())
        repository.server.setBaseURL(URL(string: "https://api.example.com"), for: .production)
        let followers = try await repository.perform(Followers())
        return followers
    }

    @Test func requestBuildsItsURLAndDecodesTheList() async throws {
        let stub = StubPerformer.json(#"[{"name": "Ada"}, {"name": "Grace"}]"#)
        let users = try await APIClient(requestPerformer: stub).perform(ListUsers())
        #expect(users.map(\.name) == ["Ada", "Grace"])
        #expect(stub.requests.map { $0.url?.absoluteString } == ["https://api.example.com/users"])
    }

    @Test func endpointFillsItsPathAndQueryFromKeyPaths() async throws {
        let server = Server()
        server.setBaseURL(URL(string: "https://api.example.com"), for: .production)
        let stub = StubPerformer.json(#"[{"name": "Ada"}]"#)
        let search = SearchUsers(pathComponents: .init(org: "swift lang"), parameters: .init(text: "ada"))
        let users = try await Server.withDefault(server) {
            try await APIClient(requestPerformer: stub).perform(search)
        }
        #expect(users.map(\.name) == ["Ada"])
        let sent = try #require(stub.requests.first)
        #expect(sent.url?.absoluteString == "https://api.example.com/orgs/swift%20lang/users?q=ada&per_page=50")
        // A nil parameter is left out.
        let unfiltered = SearchUsers(pathComponents: .init(org: "swift"), parameters: .init(text: nil))
        let unfilteredURL = try unfiltered.build(on: server).url?.absoluteString
        #expect(unfilteredURL == "https://api.example.com/orgs/swift/users?per_page=50")
    }

    @Test func apiDefinitionSendsEachCaseAsItsMethodAndEncodingSay() async throws {
        let stub = StubPerformer.json(#"{"name": "Ada"}"#, status: .created)
        let ada = try await Self.createAda(client: APIClient(requestPerformer: stub))
        #expect(ada.name == "Ada")
        let sent = try #require(stub.requests.first)
        #expect(sent.httpMethod == "POST")
        #expect(sent.url?.absoluteString == "https://api.example.com/users")
        #expect(sent.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(sent.httpBody == Data(#"{"name":"Ada"}"#.utf8))
        let list = try APIDefinitionRequest(UsersAPI.list, expecting: [User].self).build()
        #expect(list.httpMethod == "GET")
        #expect(list.httpBody == nil)
    }

    @Test func repositoryPerformsItsDefinitionAndReportsIt() async throws {
        let stub = StubPerformer.json(#"[{"name": "Ada"}]"#)
        let followers = try await Self.followers(client: APIClient(requestPerformer: stub))
        #expect(followers.map(\.name) == ["Ada"])
        #expect(stub.requests.map { $0.url?.absoluteString } == ["https://api.example.com/user/followers"])
        #expect(stub.requests.first?.httpMethod == "GET")
    }

    /// A hand-written request and the enum's case build the same request for the same endpoint.
    @Test func theStylesBuildTheSameRequestForTheSameEndpoint() throws {
        let written = try ListUsers().build()
        let enumerated = try APIDefinitionRequest(UsersAPI.list, expecting: [User].self).build()
        #expect(enumerated.url == written.url)
        #expect(enumerated.httpMethod == written.httpMethod)
        let defined = try GenericRequest(Followers(), baseURL: URL(string: "https://api.example.com")!).build()
        #expect(defined.url?.absoluteString == "https://api.example.com/user/followers")
        #expect(defined.httpMethod == written.httpMethod)
    }

    // MARK: - Errors

    static func handleErrors(client: APIClient) async {
        do {
            let user = try await client.perform(GetUser(pathComponents: .init(id: 42)))
            print(user.name)
        } catch {
            print(error.status == .notFound ? "no such user" : error.description)
        }
    }

    @Test func errorSnippetTellsANotFoundFromOtherFailures() async throws {
        let server = Server([.production: URL(string: "https://api.example.com")!])
        let missing = StubPerformer(always: HTTPResponse(status: .notFound, body: Data()))
        let printedForMissing = await Server.withDefault(server) {
            await SnippetOutput.collect { await Self.handleErrors(client: APIClient(requestPerformer: missing)) }
        }
        #expect(printedForMissing == ["no such user"])

        let misshapen = StubPerformer.json(#"{"name": 7}"#)
        let printedForMisshapen = await Server.withDefault(server) {
            await SnippetOutput.collect { await Self.handleErrors(client: APIClient(requestPerformer: misshapen)) }
        }
        #expect(printedForMisshapen.count == 1)
        #expect(printedForMisshapen.first?.hasPrefix("error: cannot parse the response") == true)

        let found = StubPerformer.json(#"{"name": "Ada"}"#)
        let printedForFound = await Server.withDefault(server) {
            await SnippetOutput.collect { await Self.handleErrors(client: APIClient(requestPerformer: found)) }
        }
        #expect(printedForFound == ["Ada"])
    }

    /// The README shows the diagnostic a parse failure prints; this renders it again and compares the text.
    @Test func renderedErrorIsTheOneTheReadmeShows() async throws {
        let server = Server([.production: URL(string: "https://api.example.com")!])
        let stub = StubPerformer.json(#"{"name": 7}"#)
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) {
                try await APIClient(requestPerformer: stub).perform(GetUser(pathComponents: .init(id: 42)))
            }
        }
        #expect(error.code == .parse)
        #expect(error.jsonPath == "$.name")
        let readme = try Self.readme()
        let shown = try #require(readme.firstMatch(of: /## Errors\n(?:.*\n)*?```text\n(?<text>(?:.*\n)*?)```/))
        #expect(error.description + "\n" == String(shown.output.text))
    }

    // MARK: - Testing

    @Test func decodesTheUsers() async throws {
        let mock = MockClient()
        mock.stub(ListUsers.self, .json(#"[{"name": "Ada"}]"#))
        let users = try await mock.perform(ListUsers())
        #expect(users.map(\.name) == ["Ada"])
        try mock.verify()
    }

    /// The mock of the testing snippet refuses a request it has no stub for, as the README says.
    @Test func mockClientFailsARequestWithNoStub() async throws {
        let mock = MockClient()
        mock.stub(ListUsers.self, .json(#"[{"name": "Ada"}]"#))
        let error = try await #require(throws: SluiceError.self) {
            try await mock.perform(APIDefinitionRequest(UsersAPI.list, expecting: [User].self))
        }
        #expect(error.message.contains("no stub for APIDefinitionRequest"))
        #expect(error.message.contains("ListUsers"))
    }

    // MARK: - The README itself

    /// The repository's root, four folders above this file.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static func readme() throws -> String {
        try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The lines of a text without their indentation, blank lines left out.
    private static func trimmedLines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n").map { String($0.drop { $0 == " " }) }.filter { !$0.isEmpty }
    }

    /// Every Swift snippet of the README, but the manifest's, is in this file: each run of lines between blank lines
    /// appears here in order, whatever its indentation, and each import is one of this file's.
    @Test func everySnippetIsCopiedHere() throws {
        let source = Self.trimmedLines(try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8))
        let snippets = try Self.readme().matches(of: /```swift\n(?<code>(?:.*\n)*?)```/).map { String($0.output.code) }
        #expect(snippets.count == 8)
        for snippet in snippets where !snippet.hasPrefix("// Package.swift") {
            for paragraph in snippet.split(separator: "\n\n") {
                let lines = Self.trimmedLines(paragraph)
                let code = lines.filter { !$0.hasPrefix("import ") }
                for line in lines where line.hasPrefix("import ") {
                    #expect(source.contains(line), "this file does not \(line)")
                }
                guard !code.isEmpty else { continue }
                let found = (0...(source.count - code.count)).contains { Array(source[$0..<($0 + code.count)]) == code }
                #expect(found, "not copied verbatim:\n\(paragraph)")
            }
        }
    }

    /// The package snippet cannot be compiled here (it is a manifest): the products it names must be in the README's
    /// table, and the table must list every library the manifest declares.
    @Test func packageSnippetAndProductTableNameTheManifestsProducts() throws {
        let readme = try Self.readme()
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let named = Set(readme.matches(of: /\.product\(name: "(\w+)", package: "sluice"\)/).map { String($0.output.1) })
        let tabled = Set(readme.matches(of: /\n\| `(Sluice\w*)` \|/).map { String($0.output.1) })
        let declared = Set(manifest.matches(of: /\.library\(name: "(\w+)"/).map { String($0.output.1) })
        #expect(named == ["Sluice", "SluiceTesting"])
        #expect(tabled == ["Sluice", "SluiceCore", "SluiceEndpoints", "SluiceJSON", "SluiceTesting"])
        #expect(named.isSubset(of: tabled))
        let differing = declared.symmetricDifference(tabled)
        #expect(declared == tabled, "the README's table and the manifest differ on \(differing)")
    }

    /// CI runs the README's two commands; they must stay as CI runs them.
    @Test func tryItNamesTheCommandsCIRuns() throws {
        let readme = try Self.readme()
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let demo = "swift run sluice-demo   # a tour against a loopback server started in the process"
        #expect(readme.contains("\n\(demo)\n"))
        #expect(readme.contains("\nswift test              # the test suite\n"))
        #expect(ci.contains("\nswift run sluice-demo\n"))
        #expect(ci.contains("\nswift test\n"))
    }
}
