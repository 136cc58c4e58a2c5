import Foundation
import SluiceCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Two clients in one process against httpbin's `/cookies/set` and `/cookies`: a cookie one client's response sets
/// is sent by that client only, on both transports, unless the two are given one store.
@Suite(.enabled(if: httpbin != nil || peersRequired, "SLUICE_HTTPBIN_URL is not set: no httpbin to test against"))
struct HTTPBinCookieTests {
    let base: URL

    init() throws {
        base = try #require(httpbin, "SLUICE_REQUIRE_PEERS is set, but SLUICE_HTTPBIN_URL is not")
    }

    /// A request whose response is its body's bytes.
    private struct Fetch: Request {
        typealias ResponseObject = Data
        let url: URL

        func build() throws -> URLRequest { URLRequest(url: url) }
    }

    /// What httpbin's `/cookies` says.
    private struct Cookies: Decodable {
        let cookies: [String: String]
    }

    /// The transports: `APIClient()` itself, whose default is Sluice's own on Linux and URLSession elsewhere, and each
    /// performer made with its defaults.
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case clientDefault
        case sockets
        case urlSession

        var testDescription: String { rawValue }

        func makeClient() -> APIClient {
            switch self {
            case .clientDefault: APIClient()
            case .sockets: APIClient(requestPerformer: SocketRequestPerformer())
            case .urlSession: APIClient(requestPerformer: NetworkRequestPerformer())
            }
        }
    }

    /// The cookies httpbin received from a client at `path` (`/cookies/set?…` redirects to `/cookies`).
    private func cookies(_ client: APIClient, _ pathAndQuery: String) async throws -> [String: String] {
        let url = try #require(URL(string: pathAndQuery, relativeTo: base)?.absoluteURL)
        return try JSONDecoder().decode(Cookies.self, from: try await client.perform(Fetch(url: url))).cookies
    }

    @Test(arguments: Transport.allCases)
    func aClientMadeLaterSendsNoneOfAnotherClientsCookies(_ transport: Transport) async throws {
        let alice = transport.makeClient()
        #expect(try await cookies(alice, "/cookies/set?session=alice") == ["session": "alice"])
        #expect(try await cookies(alice, "/cookies") == ["session": "alice"], "a client lost its own cookie")
        let bob = transport.makeClient()
        #expect(try await cookies(bob, "/cookies") == [:], "a client made later sent another client's cookie")
        #expect(try await cookies(bob, "/cookies/set?session=bob") == ["session": "bob"])
        #expect(try await cookies(alice, "/cookies") == ["session": "alice"])
        #expect(try await cookies(bob, "/cookies") == ["session": "bob"])
    }

    @Test func clientsGivenOneStoreShareItsCookies() async throws {
        let jar = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
        let sharing = SocketRequestPerformer.Configuration(cookies: .stored(in: jar))
        let first = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))
        let second = APIClient(requestPerformer: SocketRequestPerformer(configuration: sharing))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = jar
        let onURLSession = APIClient(requestPerformer: NetworkRequestPerformer(configuration: configuration))
        #expect(try await cookies(first, "/cookies/set?flavour=oatmeal") == ["flavour": "oatmeal"])
        #expect(try await cookies(second, "/cookies") == ["flavour": "oatmeal"])
        #expect(try await cookies(onURLSession, "/cookies") == ["flavour": "oatmeal"])
        #expect(try await cookies(APIClient(), "/cookies") == [:])
    }
}
