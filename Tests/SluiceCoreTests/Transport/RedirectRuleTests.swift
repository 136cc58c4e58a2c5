import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The redirects every performer follows and those it refuses, the same on both: a network server cannot send the
/// client to a local file, another protocol's server, or a Unix socket on the client's machine.
@Suite struct RedirectRuleTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("/home", response: .text("home"))
    }

    static let refused: [(location: String, reason: String)] = [
        ("ftp://127.0.0.1:1/file", "only http and https redirects are followed, and this one is to ftp"),
        ("file:///etc/passwd", "only http and https redirects are followed, and this one is to file"),
        ("gopher://127.0.0.1:1/", "only http and https redirects are followed, and this one is to gopher"),
        (
            "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json",
            "a network server may not send the request to a Unix socket on this machine"
        ),
    ]

    @Test(arguments: TransportKind.allCases)
    func refusesARedirectToAnotherSchemeOrALocalSocket(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let performer = kind.makePerformer()
        for (location, reason) in Self.refused {
            server.route("/away", response: .redirect(to: location))
            let before = server.requestCount
            let error = await #expect(throws: SluiceError.self, "\(location)") {
                try await performer.perform(URLRequest(url: origin.url("/away")))
            }
            let target = try #require(URL(string: location))
            #expect(error?.code == .transport, "\(location)")
            #expect(error?.message == "did not follow the redirect to \(target.absoluteString): \(reason)")
            #expect(server.requestCount == before + 1, "\(location)")
        }
    }

    /// Through a client, the error renders with the request that led there; a streamed request fails the same way.
    @Test(arguments: TransportKind.allCases)
    func aClientReportsTheRefusedRedirect(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/away", response: .redirect(to: "ftp://127.0.0.1:1/file"))
        let client = APIClient(requestPerformer: kind.makePerformer())
        let error = await #expect(throws: SluiceError.self) {
            try await client.perform(Raw(url: origin.url("/away")))
        }
        #expect(
            error?.description.hasPrefix(
                """
                error: did not follow the redirect to ftp://127.0.0.1:1/file: only http and https redirects are \
                followed, and this one is to ftp
                  --> GET \(origin.url("/away")) [stage: transport]
                """
            ) == true
        )
        await #expect(throws: SluiceError.self) {
            _ = try await kind.makePerformer().stream(URLRequest(url: origin.url("/away")))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func refusesALocationWithAControlCharacter(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/away", response: .redirect(to: "/ho\tme"))
        let error = await #expect(throws: SluiceError.self) {
            try await kind.makePerformer().perform(URLRequest(url: origin.url("/away")))
        }
        #expect(error?.message.hasSuffix(": the Location field holds the control character U+0009") == true)
        #expect(server.receivedRequests.map(\.path) == ["/away"])
    }

    @Test(arguments: TransportKind.allCases)
    func followsARedirectOnTheSameServer(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/away", response: .redirect(to: "/home"))
        let response = try await kind.makePerformer().perform(URLRequest(url: origin.url("/away")))
        #expect(String(decoding: response.body, as: UTF8.self) == "home")
    }

    static let rows: [(from: String, to: String, downgrade: Bool, reason: String?)] = [
        ("http://a.example/", "https://b.example/", false, nil),
        ("https://a.example/", "https://b.example/", false, nil),
        (
            "https://a.example/", "http://a.example/", false,
            "it leads from https to http, which would send the request in clear text (a performer's "
                + "followsRedirectsFromHTTPSToHTTP allows it)"
        ),
        ("https://a.example/", "http://a.example/", true, nil),
        ("http+unix://%2Ftmp%2Fa.sock/x", "http+unix://%2Ftmp%2Fa.sock/y", false, nil),
        (
            "http+unix://%2Ftmp%2Fa.sock/x", "http+unix://%2Ftmp%2Fb.sock/y", false,
            "it leads to another Unix socket than the one the request was sent to"
        ),
        (
            "https://a.example/", "http+unix://%2Ftmp%2Fa.sock/y", false,
            "a network server may not send the request to a Unix socket on this machine"
        ),
        ("http+unix://%2Ftmp%2Fa.sock/x", "http://a.example/", false, nil),
        (
            "http://a.example/", "data:text/plain,hi", false,
            "only http and https redirects are followed, and this one is to data"
        ),
    ]

    @Test(arguments: rows)
    func decidesEachRedirect(_ row: (from: String, to: String, downgrade: Bool, reason: String?)) throws {
        let reason = RedirectRule.refusal(
            from: URL(string: row.from),
            location: row.to,
            to: try #require(URL(string: row.to)),
            allowingDowngrade: row.downgrade
        )
        #expect(reason == row.reason)
    }

    /// The downgrade setting reaches the rule from both performers' configurations.
    @Test func theDowngradeIsOffUnlessConfigured() {
        #expect(SocketRequestPerformer.Configuration().followsRedirectsFromHTTPSToHTTP == false)
        #expect(
            SocketRequestPerformer.Configuration(followsRedirectsFromHTTPSToHTTP: true).followsRedirectsFromHTTPSToHTTP
        )
    }
}
