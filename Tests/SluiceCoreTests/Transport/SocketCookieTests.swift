import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cookies Sluice's own transport keeps in its storage and sends: by host, path and `Secure`, beside the
/// request's own, and none for a request that handles no cookies.
@Suite struct SocketCookieTests {
    let server: LoopbackServer
    let storage: HTTPCookieStorage
    let performer: SocketRequestPerformer

    init() throws {
        server = try LoopbackServer()
        storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        performer = SocketRequestPerformer(configuration: .init(cookies: .stored(in: storage)))
        server.route("GET", "/set") { _ in
            LoopbackServer.Response.text("set")
                .addingHeader("Set-Cookie", "plain=1; Path=/")
                .addingHeader("Set-Cookie", "secure=2; Path=/; Secure")
                .addingHeader("Set-Cookie", "deep=3; Path=/deep")
                .addingHeader("Set-Cookie", "dated=4; Path=/; Expires=Wed, 21 Oct 2099 07:28:00 GMT")
        }
        server.route("/show") { request in .text(request.header("Cookie") ?? "(none)") }
        server.route("/deep/show") { request in .text(request.header("Cookie") ?? "(none)") }
    }

    private func cookieHeader(_ request: URLRequest) async throws -> String {
        String(decoding: try await performer.perform(request).body, as: UTF8.self)
    }

    @Test func storesEveryFieldAndSendsThoseThatMatchTheURL() async throws {
        _ = try await performer.perform(URLRequest(url: server.url("/set")))
        #expect(Set(storage.cookies?.map(\.name) ?? []) == ["plain", "secure", "deep", "dated"])
        // Over http: no Secure cookie, and the one scoped to /deep only there.
        let show = try await cookieHeader(URLRequest(url: server.url("/show")))
        #expect(
            Set(show.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }) == ["plain=1", "dated=4"]
        )
        let deep = try await cookieHeader(URLRequest(url: server.url("/deep/show")))
        #expect(deep.contains("deep=3") && !deep.contains("secure=2"))
    }

    @Test func theRequestsOwnCookieComesFirstAndWins() async throws {
        _ = try await performer.perform(URLRequest(url: server.url("/set")))
        var request = URLRequest(url: server.url("/show"))
        request.setValue("plain=mine; extra=x", forHTTPHeaderField: "Cookie")
        let sent = try await cookieHeader(request)
        #expect(sent.hasPrefix("plain=mine; extra=x; "), "\(sent)")
        #expect(!sent.contains("plain=1"))
        #expect(sent.contains("dated=4"))
    }

    @Test func anotherHostGetsNone() async throws {
        _ = try await performer.perform(URLRequest(url: server.url("/set")))
        var components = try #require(URLComponents(url: server.url("/show"), resolvingAgainstBaseURL: false))
        components.host = "localhost"
        #expect(try await cookieHeader(URLRequest(url: try #require(components.url))) == "(none)")
    }

    @Test func aRequestThatHandlesNoCookiesStoresAndSendsNone() async throws {
        var set = URLRequest(url: server.url("/set"))
        set.httpShouldHandleCookies = false
        _ = try await performer.perform(set)
        #expect(storage.cookies?.isEmpty ?? true)
        _ = try await performer.perform(URLRequest(url: server.url("/set")))
        var show = URLRequest(url: server.url("/show"))
        show.httpShouldHandleCookies = false
        #expect(try await cookieHeader(show) == "(none)")
    }

    @Test(arguments: ["Max-Age=0", "Max-Age=-1", "Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
    func anExpiredCookieDeletesTheStoredOne(_ expiry: String) async throws {
        _ = try await performer.perform(URLRequest(url: server.url("/set")))
        server.route("GET", "/forget") { _ in
            LoopbackServer.Response.text("gone").addingHeader("Set-Cookie", "plain=; Path=/; \(expiry)")
        }
        _ = try await performer.perform(URLRequest(url: server.url("/forget")))
        #expect(Set(storage.cookies?.map(\.name) ?? []) == ["secure", "deep", "dated"])
        #expect(try await cookieHeader(URLRequest(url: server.url("/show"))) == "dated=4")
    }

    @Test func noStorageKeepsNothing() async throws {
        let bare = SocketRequestPerformer(configuration: .init(cookies: .disabled))
        #expect(bare.cookieStorage == nil)
        _ = try await bare.perform(URLRequest(url: server.url("/set")))
        #expect(
            String(decoding: try await bare.perform(URLRequest(url: server.url("/show"))).body, as: UTF8.self)
                == "(none)"
        )
    }
}
