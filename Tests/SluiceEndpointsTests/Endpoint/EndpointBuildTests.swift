import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

private struct GetFile: Endpoint {
    static let definition: Definition<GetFile> = Definition(
        method: .get,
        path: "repos/\(path: \.repo)/files/\(path: \.name)"
    )
    typealias Response = Data
    struct PathComponents {
        var repo: String
        var name: String
    }
    var pathComponents: PathComponents
}

private struct Search: Endpoint {
    static let definition: Definition<Search> = Definition(
        method: .get,
        path: "search",
        parameters: [
            .query("q", path: \.text), .query("tag", path: \.tags), .query("page", path: \.page),
            .queryValue("sort", value: Sort.newest),
        ]
    )
    typealias Response = [String]
    enum Sort: String, PathRepresentable {
        case newest
    }
    struct Parameters {
        var text: String
        var tags: [String]
        var page: Int?
    }
    var parameters: Parameters
}

private struct SearchBrackets: Endpoint {
    static let definition: Definition<SearchBrackets> = Definition(
        method: .get,
        path: "search",
        parameters: [.query("q", path: \.text), .query("tag", path: \.tags)],
        queryEncoding: QueryEncoding(spaces: .plus, arrays: .brackets)
    )
    typealias Response = [String]
    struct Parameters {
        var text: String
        var tags: [Int]
    }
    var parameters: Parameters
}

private struct SearchCommas: Endpoint {
    static let definition: Definition<SearchCommas> = Definition(
        method: .get,
        path: "search",
        parameters: [.query("tag", path: \.tags)],
        queryEncoding: QueryEncoding(arrays: .commaSeparated)
    )
    typealias Response = [String]
    struct Parameters {
        var tags: [String]
    }
    var parameters: Parameters
}

private struct Login: Endpoint {
    static let definition: Definition<Login> = Definition(
        method: .post,
        path: "/session",
        parameters: [
            .form("user", path: \.user), .form("password", path: \.password), .formValue("remember", value: true),
        ]
    )
    typealias Response = Void
    struct Parameters {
        var user: String
        var password: String
    }
    var parameters: Parameters
}

private struct CreateNote: Endpoint {
    static let definition: Definition<CreateNote> = Definition(
        method: .post,
        path: "notes",
        headers: ["X-Trace": .field(path: \.trace), .accept: .fieldValue(value: "application/json")]
    )
    typealias Response = Note
    typealias Body = Note
    struct HeaderValues {
        var trace: String?
    }
    var headerValues: HeaderValues
    var body: Note
    var bodyEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}

private struct CreateNoteAsText: Endpoint {
    static let definition: Definition<CreateNoteAsText> = Definition(
        method: .put,
        path: "notes",
        headers: [.contentType: .fieldValue(value: "application/vnd.notes+json")]
    )
    typealias Response = Void
    typealias Body = Note
    var body: Note
}

private struct Note: Codable, Equatable, Sendable {
    var title: String
    var score: Double
}

@Suite struct EndpointBuildTests {
    @Test(arguments: [
        ("plain", "readme.md", "https://api.example.com/v2/repos/plain/files/readme.md"),
        ("with space", "a b", "https://api.example.com/v2/repos/with%20space/files/a%20b"),
        ("slash/inside", "x", "https://api.example.com/v2/repos/slash%2Finside/files/x"),
        ("unicode", "café ☕", "https://api.example.com/v2/repos/unicode/files/caf%C3%A9%20%E2%98%95"),
        ("reserved", "a?b#c&d=e+f%g", "https://api.example.com/v2/repos/reserved/files/a%3Fb%23c%26d%3De%2Bf%25g"),
        ("tilde-dot_dash", "v1.2~x", "https://api.example.com/v2/repos/tilde-dot_dash/files/v1.2~x"),
    ])
    func percentEncodesPathValuesAsSegments(_ repo: String, _ name: String, _ expected: String) throws {
        let request = try GetFile(pathComponents: .init(repo: repo, name: name)).build(on: exampleAPI)
        #expect(request.url?.absoluteString == expected)
        #expect(request.httpMethod == "GET")
        #expect(GetFile.definition.path.template == "repos/{repo}/files/{name}")
    }

    @Test func followsTheServersEnvironment() throws {
        let server = Server(exampleAPI.baseURLs)
        let endpoint = GetFile(pathComponents: .init(repo: "r", name: "n"))
        #expect(try endpoint.build(on: server).url?.host == "api.example.com")
        server.environment = .staging
        #expect(try endpoint.build(on: server).url?.absoluteString == "http://staging.local:8080/repos/r/files/n")
        server.environment = .local
        let error = try #require(throws: Server.MissingBaseURL.self) { try endpoint.build(on: server) }
        #expect(error.description == "no base URL for the local environment; configured: production, staging")
    }

    @Test func encodesQueryParametersWithTheDefaultStrategy() throws {
        let request = try Search(parameters: .init(text: "swift & c++ = fun", tags: ["a b", "c"], page: nil)).build(
            on: exampleAPI
        )
        #expect(
            request.url?.absoluteString
                == "https://api.example.com/v2/search?q=swift%20%26%20c%2B%2B%20%3D%20fun&tag=a%20b&tag=c&sort=newest"
        )
        let paged = try Search(parameters: .init(text: "x", tags: [], page: 3)).build(on: exampleAPI)
        #expect(paged.url?.query == "q=x&page=3&sort=newest")
    }

    @Test func encodesQueryParametersWithPlusAndBrackets() throws {
        let request = try SearchBrackets(parameters: .init(text: "a b", tags: [1, 2])).build(on: exampleAPI)
        #expect(request.url?.query == "q=a+b&tag%5B%5D=1&tag%5B%5D=2")
        let commas = try SearchCommas(parameters: .init(tags: ["x,y", "z"])).build(on: exampleAPI)
        #expect(commas.url?.query == "tag=x%2Cy,z")
    }

    @Test func keepsTheBaseURLsOwnQuery() throws {
        let server = Server([.production: URL(staticString: "https://api.example.com/v2?key=abc")])
        let request = try Search(parameters: .init(text: "x", tags: [], page: nil)).build(on: server)
        #expect(request.url?.absoluteString == "https://api.example.com/v2/search?key=abc&q=x&sort=newest")
    }

    @Test func sendsFormParametersAsAURLEncodedBody() throws {
        let request = try Login(parameters: .init(user: "ada@example.com", password: "p@ss word+1")).build(
            on: exampleAPI
        )
        #expect(request.url?.absoluteString == "https://api.example.com/v2/session")
        #expect(request.httpMethod == "POST")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            request.httpBody.map { String(decoding: $0, as: UTF8.self) }
                == "user=ada%40example.com&password=p%40ss+word%2B1&remember=true"
        )
    }

    @Test func encodesTheBodyAndSetsItsContentType() throws {
        let request = try CreateNote(headerValues: .init(trace: "t-1"), body: Note(title: "Hi", score: 1.5)).build(
            on: exampleAPI
        )
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == #"{"score":1.5,"title":"Hi"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-Trace") == "t-1")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json")
    }

    @Test func leavesOutAHeaderWhoseValueIsNil() throws {
        let request = try CreateNote(headerValues: .init(trace: nil), body: Note(title: "Hi", score: 1)).build(
            on: exampleAPI
        )
        #expect(request.value(forHTTPHeaderField: "X-Trace") == nil)
    }

    @Test func letsADefinitionHeaderOverrideTheEncodersContentType() throws {
        let request = try CreateNoteAsText(body: Note(title: "Hi", score: 2)).build(on: exampleAPI)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/vnd.notes+json")
        #expect(request.httpMethod == "PUT")
    }

    @Test func writesMultipartBytesWithAFixedBoundary() throws {
        let form = MultipartForm([
            .field("caption", "At the \"beach\""),
            .file("photo", filename: "beach.jpg", contentType: "image/jpeg", data: Data([0xFF, 0xD8, 0xFF])),
        ])
        let request = try Upload(body: form).build(on: exampleAPI)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=BOUNDARY")
        var expected = Data(
            """
            --BOUNDARY\r
            Content-Disposition: form-data; name="caption"\r
            \r
            At the "beach"\r
            --BOUNDARY\r
            Content-Disposition: form-data; name="photo"; filename="beach.jpg"\r
            Content-Type: image/jpeg\r
            \r

            """.utf8
        )
        expected.append(contentsOf: [0xFF, 0xD8, 0xFF])
        expected.append(Data("\r\n--BOUNDARY--\r\n".utf8))
        #expect(request.httpBody == expected)
    }

    @Test func streamsFilePartsFromDisk() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID().uuidString).bin")
        let content = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let form = MultipartForm([
            .field("a", "1"), .file("blob", fileURL: file, contentType: "application/octet-stream"),
        ])
        let request = try Upload(body: form).build(on: exampleAPI)
        #expect(request.httpBody == nil)
        let stream = try #require(request.httpBodyStream)
        stream.open()
        var read = Data()
        var buffer = [UInt8](repeating: 0, count: 7_000)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 {
                break
            }
            read.append(buffer, count: count)
        }
        stream.close()
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(read.count))
        let header = Data(
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--BOUNDARY\r\nContent-Disposition: form-data; name=\"blob\"; filename=\"\(file.lastPathComponent)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                .utf8
        )
        #expect(read.prefix(header.count) == header)
        #expect(read.dropFirst(header.count).prefix(content.count) == content)
        #expect(read.suffix(16) == Data("\r\n--BOUNDARY--\r\n".utf8))
    }
}

@Suite struct EndpointBuildErrorTests {
    @Test(arguments: [
        ("", "GetFile.pathComponents.name: the path value is empty, which would leave an empty segment"),
        ("..", "GetFile.pathComponents.name: the path value \"..\" would change the path's shape"),
        (".", "GetFile.pathComponents.name: the path value \".\" would change the path's shape"),
    ])
    func rejectsPathValuesThatChangeThePath(_ name: String, _ message: String) throws {
        let error = try requireInvalidField {
            try GetFile(pathComponents: .init(repo: "r", name: name)).build(on: exampleAPI)
        }
        #expect(error.description == message)
        #expect(error.field == "pathComponents.name")
    }

    @Test func setsTheDefinitionsTimeoutAndRejectsOneThatIsNotPositive() throws {
        struct Slow: Endpoint {
            static let definition: Definition<Slow> = Definition(method: .get, path: "reports", timeout: .seconds(2.5))
            typealias Response = Void
        }
        struct Instant: Endpoint {
            static let definition: Definition<Instant> = Definition(method: .get, path: "now", timeout: .zero)
            typealias Response = Void
        }
        #expect(try Slow().build(on: exampleAPI).timeoutInterval == 2.5)
        let error = try requireInvalidField { try Instant().build(on: exampleAPI) }
        #expect(error.description == "Instant.timeout: the timeout is 0ns, and must be more than zero")
    }

    @Test func rejectsANilPathValue() throws {
        struct Optional: Endpoint {
            static let definition: Definition<Optional> = Definition(method: .get, path: "items/\(path: \.id)")
            typealias Response = Void
            struct PathComponents {
                var id: Int?
            }
            var pathComponents: PathComponents
        }
        let error = try requireInvalidField {
            try Optional(pathComponents: .init(id: nil)).build(on: exampleAPI)
        }
        #expect(error.description == "Optional.pathComponents.id: the path value is nil")
        #expect(try Optional(pathComponents: .init(id: 7)).build(on: exampleAPI).url?.path == "/v2/items/7")
    }

    @Test func rejectsAHeaderValueWithALineBreak() throws {
        let endpoint = CreateNote(headerValues: .init(trace: "a\r\nX-Evil: 1"), body: Note(title: "t", score: 0))
        let error = try requireInvalidField { try endpoint.build(on: exampleAPI) }
        #expect(
            error.description
                == "CreateNote.headers.X-Trace: the value contains the control character U+000D, which would break the header"
        )
    }

    @Test func rejectsABodyTheEncoderRejects() throws {
        let endpoint = CreateNote(headerValues: .init(trace: nil), body: Note(title: "t", score: .nan))
        let error = try requireInvalidField { try endpoint.build(on: exampleAPI) }
        #expect(error.endpoint == "CreateNote")
        #expect(error.field == "body")
        #expect(error.reason.hasPrefix("the encoder rejected it: "))
    }

    @Test func rejectsAFormAndABodyTogether() throws {
        struct Both: Endpoint {
            static let definition: Definition<Both> = Definition(
                method: .post,
                path: "x",
                parameters: [.formValue("a", value: 1)]
            )
            typealias Response = Void
            var body: Note
        }
        let error = try requireInvalidField {
            try Both(body: Note(title: "t", score: 1)).build(on: exampleAPI)
        }
        #expect(
            error.description
                == "Both.body: the definition has form parameters and the endpoint a body; a request carries one body"
        )
    }

    @Test func rejectsAValueThatIsNotPathRepresentable() throws {
        struct Odd: Endpoint {
            static let definition: Definition<Odd> = Definition(
                method: .get,
                path: "x",
                parameters: [.query("when", path: \.when)]
            )
            typealias Response = Void
            struct Parameters {
                var when: Date
            }
            var parameters: Parameters
        }
        let error = try requireInvalidField {
            try Odd(parameters: .init(when: Date())).build(on: exampleAPI)
        }
        #expect(
            error.description
                == "Odd.parameters.when: a value of type Date is neither PathRepresentable nor an array of such values"
        )
    }

    @Test func rejectsAMissingFileAndAnInvalidBoundary() throws {
        let missing = Upload(
            body: MultipartForm([.file("f", fileURL: URL(fileURLWithPath: "/nonexistent/file.bin"), contentType: "x/y")]
            )
        )
        let error = try requireInvalidField { try missing.build(on: exampleAPI) }
        #expect(error.reason.hasSuffix("the file of part \"f\" cannot be read: /nonexistent/file.bin"))
        #expect(throws: EncodingError.self) {
            try MultipartForm.Encoder(boundary: "bad\"boundary").encodeBody(MultipartForm([]))
        }
        #expect(throws: EncodingError.self) { try JSONEncoder().encodeBody(MultipartForm([])) }
    }

    @Test func reportsABuildFailureThroughTheClientAndSendsNothing() async throws {
        let endpoint = GetFile(pathComponents: .init(repo: "r", name: ""))
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(exampleAPI) {
                try await APIClient(requestPerformer: RefusingPerformer()).perform(endpoint)
            }
        }
        #expect(error.code == .build)
        #expect(
            error.message
                == "cannot build the request: GetFile.pathComponents.name: the path value is empty, which would leave an empty segment"
        )
    }
}

/// A performer that fails any test that reaches it.
private struct RefusingPerformer: RequestPerformer {
    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        Issue.record("nothing should have been sent, but \(request) was")
        throw URLError(.cancelled)
    }
}
