import Foundation
import SluiceCore
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every request a client builds is checked before any performer sees it, whatever the transport.
///
/// What breaks a rule fails at the build stage, naming the field and the character, and nothing reaches the server.
/// The error shows no request: one that breaks a rule is not built, and its method or URL could break the log line too.
@Suite struct RequestValidationTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("/x", response: .text("x"))
        server.route("POST", "/x", response: .text("x"))
    }

    /// A request that sets its method and header fields as a caller's code would, with values it did not vet.
    struct Tampered: Request {
        typealias ResponseObject = Data
        var url: URL
        var method = "GET"
        var fields: [String: String] = [:]
        var body: Data?

        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            // Set as a whole: on Linux `setValue(_:forHTTPHeaderField:)` drops a value holding CR, LF or NUL, and
            // the check must hold either way.
            request.allHTTPHeaderFields = fields
            request.httpBody = body
            return request
        }
    }

    static let cases: [(name: String, method: String, fields: [String: String], body: Data?, reason: String)] = [
        (
            "CR LF in a value", "GET", ["X-Note": "a\r\nX-Injected: 1"], nil,
            "headers.X-Note: the value contains the control character U+000D, which would break the header"
        ),
        (
            "NUL in a value", "GET", ["X-Note": "a\u{0}b"], nil,
            "headers.X-Note: the value contains the control character U+0000, which would break the header"
        ),
        (
            "a colon in a name", "GET", ["X-A:X-B": "1"], nil,
            #"headers["X-A:X-B"]: the name holds U+003A, which a header name cannot"#
        ),
        (
            "CR LF in the method", "GET\r\nX-Injected: 1", [:], nil,
            "method: the method holds U+000D, which a method cannot"
        ),
        (
            "a Content-Length longer than the body", "POST", ["Content-Length": "10"], Data("12345".utf8),
            "headers.Content-Length: the value 10 does not match the body's 5 bytes"
        ),
        (
            "a Transfer-Encoding", "POST", ["Transfer-Encoding": "chunked"], Data("12345".utf8),
            "headers.Transfer-Encoding: the transport frames the body and sets Transfer-Encoding itself; leave it out"
        ),
    ]

    @Test(arguments: TransportKind.allCases)
    func refusesEachAtTheBuildStageAndSendsNothing(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let client = APIClient(requestPerformer: kind.makePerformer())
        for (name, method, fields, body, reason) in Self.cases {
            let request = Tampered(url: origin.url("/x"), method: method, fields: fields, body: body)
            let error = await #expect(throws: SluiceError.self, "\(name)") { try await client.perform(request) }
            #expect(error?.code == .build, "\(name)")
            #expect(error?.stage == .build, "\(name)")
            #expect(error?.invalidField != nil, "\(name)")
            #expect(
                error?.description.hasPrefix(
                    """
                    error: cannot build the request: Tampered.\(reason)
                      --> (request not built) [stage: build]
                    """
                ) == true,
                "\(name): \(error.map(String.init(describing:)) ?? "")"
            )
        }
        #expect(server.requestCount == 0)
    }

    /// A performer called directly checks again what it is handed, and sends nothing that breaks a rule.
    @Test(arguments: TransportKind.allCases)
    func aPerformerCalledDirectlyRefusesItToo(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        for (name, method, fields, body, reason) in Self.cases {
            let request = try Tampered(url: origin.url("/x"), method: method, fields: fields, body: body).build()
            let error = await #expect(throws: SluiceError.self, "\(name)") { try await performer.perform(request) }
            #expect(error?.code == .transport, "\(name)")
            #expect(error?.message == "cannot send the request: URLRequest.\(reason)", "\(name)")
        }
        #expect(server.requestCount == 0)
    }

    @Test func passesWhatACallerMeans() async throws {
        let client = APIClient(requestPerformer: SocketRequestPerformer())
        let request = Tampered(
            url: server.url("/x"),
            method: "POST",
            fields: ["X-Note": "caf\u{E9}\tok", "Content-Length": "5", "Content-Type": "text/plain"],
            body: Data("12345".utf8)
        )
        #expect(try await client.perform(request) == Data("x".utf8))
        #expect(server.receivedRequests.last?.header("X-Note") == "caf\u{E9}\tok")
    }

    /// A `URL` percent-encodes a space or a control character in its path and query, so the check of the URL holds
    /// for a URL Foundation did not make: it is checked on the text itself.
    @Test(arguments: [
        ("/a b", "path", "the path holds a raw space, which would end the request target"),
        ("/a\tb", "path", "the path holds the control character U+0009, which would break the request line"),
        ("q=1\r\nX: 2", "query", "the query holds the control character U+000D, which would break the request line"),
        ("exa\u{0}mple.com", "host", "the host holds the control character U+0000, which would break the request line"),
    ])
    func refusesASpaceOrAControlCharacterInTheURL(_ part: String, field: String, reason: String) throws {
        let error = #expect(throws: InvalidFieldError.self) {
            try URLRequest.checkURLPart(part, field, of: "GetUser")
        }
        #expect(error?.description == "GetUser.url.\(field): \(reason)")
        #expect(throws: Never.self) { try URLRequest.checkURLPart("/a%20b", field, of: "GetUser") }
    }

    /// What Foundation makes of the same text: the URL a request is built from holds it percent-encoded.
    @Test func foundationEncodesWhatTheURLCheckRefuses() throws {
        let url = try #require(URL(string: "http://example.com/a b?q=1 2"))
        #expect(url.path(percentEncoded: true) == "/a%20b")
        #expect(url.query(percentEncoded: true) == "q=1%202")
    }

    /// A field name or length of any size is quoted in 64 characters at most, so that the error stays one short line
    /// (the request validation's fuzzer found a name of four kilobytes quoted whole).
    @Test func quotesALongNameOrLengthInShort() throws {
        var request = URLRequest(url: try #require(URL(string: "http://example.com/")))
        request.allHTTPHeaderFields = [String(repeating: "n", count: 4_000) + "\u{1A}": "1"]
        let name = #expect(throws: InvalidFieldError.self) { try request.validateForSending(as: "Long") }
        #expect(
            name?.description == #"Long.headers[""# + String(repeating: "n", count: 64)
                + #"…"]: the name holds U+001A, which a header name cannot"#
        )
        request.allHTTPHeaderFields = ["Content-Length": String(repeating: "9", count: 4_000)]
        request.httpBody = Data("x".utf8)
        let length = #expect(throws: InvalidFieldError.self) { try request.validateForSending(as: "Long") }
        #expect(length?.description.utf8.count ?? .max < 200)
    }

    /// A request built outside a client (by a bridge from another library's types) is refused as a client refuses it:
    /// the same code, the same field, the same reason.
    @Test func refusesARequestBuiltOutsideAClientAsAClientDoes() async throws {
        let built = Tampered(url: server.url("/x"), fields: ["X-Trace": "a\u{85}b"])
        let request = try built.build()
        let direct = #expect(throws: SluiceError.self) { try request.validate(as: "Bridge") }
        let client = await #expect(throws: SluiceError.self) { try await APIClient().perform(built) }
        #expect(direct?.code == .build)
        #expect(direct?.invalidField?.field == client?.invalidField?.field)
        #expect(direct?.invalidField?.reason == client?.invalidField?.reason)
        #expect(
            direct?.invalidField?.description
                == "Bridge.headers.X-Trace: the value contains the control character U+0085, which would break the header"
        )
        var fine = URLRequest(url: server.url("/x"))
        fine.setValue("1", forHTTPHeaderField: "X-Trace")
        #expect(throws: Never.self) { try fine.validate() }
    }

    /// Header fields from another library's types are checked field by field, the first at fault named.
    @Test func refusesHeaderFieldsAsAClientDoes() throws {
        let fields = HTTPHeaders([.init("Accept", "*/*"), .init("X Trace", "1"), .init("X-Next", "a\nb")])
        let error = #expect(throws: SluiceError.self) { try fields.validate(as: "HTTPFields") }
        #expect(error?.code == .build)
        #expect(
            error?.invalidField?.description
                == #"HTTPFields.headers["X Trace"]: the name holds U+0020, which a header name cannot"#
        )
        #expect(throws: Never.self) {
            try HTTPHeaders([.init("Set-Cookie", "a=1"), .init("Set-Cookie", "b=2")]).validate(as: "HTTPFields")
        }
    }
}
