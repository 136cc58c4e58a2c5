import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Records and logs exchanges with a server that reflects every header, cookie and body back, in JSON, form data and
/// text, and looks for every credential's bytes in the fixtures, the log, the errors and the cURL commands.
@Suite struct CredentialEchoTests {
    /// The credentials of the exchanges, each distinct, so that a hit names its source.
    struct Credentials {
        let id = UUID().uuidString.prefix(8)
        var bearer: String { "bearer-\(id)-store" }
        var refreshed: String { "bearer-\(id)-fresh" }
        var password: String { "pass-\(id)-body" }
        var clientSecret: String { "client-\(id)-secret" }
        var nestedRefresh: String { "nested-\(id)-refresh" }
        var nestedFormPassword: String { "nested-\(id)-form" }
        var formToken: String { "form-\(id)-token" }
        var apiKey: String { "query-\(id)-key" }
        var urlPassword: String { "url-\(id)-pass" }
        var cookie: String { "cookie-\(id)-sent" }
        var accessToken: String { "access-\(id)-issued" }
        var refreshToken: String { "refresh-\(id)-issued" }
        var idToken: String { "id-\(id)-issued" }
        var session: String { "session-\(id)-set" }
        var headerKey: String { "header-\(id)-key" }

        var all: [String] {
            [
                bearer, refreshed, password, clientSecret, nestedRefresh, nestedFormPassword, formToken, apiKey,
                urlPassword, cookie, accessToken, refreshToken, idToken, session, headerKey,
            ]
        }

        /// The forms a credential's bytes are searched in: as they are, in Base64 (with and without padding) and
        /// percent-encoded.
        func forms(of secret: String) -> [String] {
            let base64 = Data(secret.utf8).base64EncodedString()
            return [
                secret, base64, String(base64.prefix { $0 != "=" }),
                secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret,
            ]
        }

        /// The credentials found in some text, in any of their forms.
        func leaks(in text: String) -> [String] {
            all.filter { secret in forms(of: secret).contains { text.contains($0) } }
        }
    }

    struct Exchange: Request {
        typealias ResponseObject = Data
        var url: URL
        var method = "POST"
        var headers: [String: String] = [:]
        var body: Data?

        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = method
            for (name, value) in headers {
                request.setValue(value, forHTTPHeaderField: name)
            }
            request.httpBody = body
            return request
        }
    }

    /// What a replayed echo still decodes to: the values that were not redacted.
    struct Echo: Decodable, Equatable {
        var method: String
        var args: [String: String]
    }

    struct Issued: Decodable, Equatable {
        var user: String
        var expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case user
            case expiresIn = "expires_in"
        }
    }

    /// The requests of the recording, each sending credentials its own way to one of the echo routes.
    func exchanges(_ server: LoopbackServer, _ credentials: Credentials) throws -> [Exchange] {
        let nested = #"{"refresh_token":"\#(credentials.nestedRefresh)","scope":"read"}"#
        let json = """
            {"user": "ada", "password": "\(credentials.password)", "profile": {"clientSecret": \
            "\(credentials.clientSecret)", "data": \(try jsonString(nested)), \
            "note": "grant=x&password=\(credentials.nestedFormPassword)"}}
            """
        var exchanges: [Exchange] = []
        for format in ["json", "form", "text"] {
            exchanges.append(
                Exchange(
                    url: server.url("/echo/\(format)?api_key=\(credentials.apiKey)&page=2"),
                    headers: ["Content-Type": "application/json"],
                    body: Data(json.utf8)
                )
            )
            exchanges.append(
                Exchange(
                    url: server.url("/echo/\(format)?page=3"),
                    headers: [
                        "Content-Type": "application/x-www-form-urlencoded",
                        "X-API-Key": credentials.headerKey,
                    ],
                    body: Data("user=ada&accessToken=\(credentials.formToken)&remember=1".utf8)
                )
            )
            exchanges.append(
                Exchange(
                    url: server.url("/echo/\(format)?page=4"),
                    headers: ["Content-Type": "text/plain"],
                    body: Data("dear server, my password: \(credentials.password)\n".utf8)
                )
            )
        }
        var withPassword = try #require(
            URLComponents(url: server.url("/echo/json?page=5"), resolvingAgainstBaseURL: false)
        )
        withPassword.user = "ada"
        withPassword.password = credentials.urlPassword
        exchanges.append(Exchange(url: try #require(withPassword.url), method: "GET"))
        return exchanges
    }

    func jsonString(_ text: String) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    func startServer(_ credentials: Credentials) throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("POST", "/login") { _ in
            LoopbackServer.Response.json(
                """
                {"user": "ada", "access_token": "\(credentials.accessToken)", \
                "refresh_token": "\(credentials.refreshToken)", "id_token": "\(credentials.idToken)", "expires_in": 3600}
                """
            )
            .addingHeader("Set-Cookie", "session=\(credentials.session); Path=/; HttpOnly")
            .addingHeader("Set-Cookie", "sid=\(credentials.cookie); Path=/echo")
        }
        for format in LoopbackServer.Response.EchoFormat.allCases {
            server.route("/echo/\(format)") { request in .echo(of: request, as: format) }
        }
        server.route("/denied") { request in .echo(of: request, as: .json, status: 403) }
        return server
    }

    @Test func noCredentialReachesAFixtureALogAnErrorOrACurlCommand() async throws {
        let credentials = Credentials()
        let server = try startServer(credentials)
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-echo-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = Locked<[String]>([])
        let store = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer \(credentials.bearer)"),
            hosts: ["127.0.0.1"]
        ) { _ in
            CredentialStore.Credential(authorization: "Bearer \(credentials.refreshed)")
        }
        let recorder = RecordingPerformer(
            base: NetworkRequestPerformer().authenticated(by: store).logged(bodyLimit: 1 << 20) { line in
                log.withLock { $0.append(line) }
            },
            directory: directory
        )
        let client = APIClient(requestPerformer: recorder)

        let issued = try await client.perform(Exchange(url: server.url("/login"), body: Data("{}".utf8)))
        let exchanges = try exchanges(server, credentials)
        for exchange in exchanges {
            _ = try await client.perform(exchange)
        }
        let denied = try await #require(throws: SluiceError.self) {
            try await client.perform(exchanges[0].with(url: server.url("/denied?api_key=\(credentials.apiKey)")))
        }

        // The server saw the credentials: the test sends what it means to.
        let received = server.receivedRequests.map { request in
            request.target + request.headers.map(\.description).joined() + request.bodyText
        }.joined()
        let sent = [
            credentials.bearer, credentials.password, credentials.clientSecret, credentials.nestedRefresh,
            credentials.nestedFormPassword, credentials.formToken, credentials.apiKey, credentials.cookie,
            credentials.headerKey,
        ]
        #expect(Set(credentials.leaks(in: received)).isSuperset(of: sent))

        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count == exchanges.count + 2)
        for file in files {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(credentials.leaks(in: String(decoding: bytes, as: UTF8.self)).isEmpty, "\(file)")
        }
        let lines = log.withLock { $0 }
        #expect(lines.count == 2 * (exchanges.count + 2))
        for line in lines {
            #expect(credentials.leaks(in: line).isEmpty, "\(line)")
        }
        #expect(credentials.leaks(in: denied.description).isEmpty, "\(denied.description)")
        #expect(denied.description.contains(#"| body: {"args":{"api_key":"<redacted>"},"cookies":{"#))
        for exchange in exchanges {
            let curl = try exchange.build().curlCommand()
            #expect(credentials.leaks(in: curl).isEmpty, "\(curl)")
        }

        // Replayed, the fixtures decode to the same models where no redacted value is read.
        server.stop()
        let replay = APIClient(requestPerformer: try ReplayingPerformer(directory: directory))
        let replayedLogin = try await replay.perform(Exchange(url: server.url("/login"), body: Data("{}".utf8)))
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Issued.self, from: replayedLogin) == decoder.decode(Issued.self, from: issued))
        for exchange in exchanges where exchange.url.path == "/echo/json" {
            let replayed = try decoder.decode(Echo.self, from: try await replay.perform(exchange))
            #expect(replayed.method == exchange.method)
            #expect(replayed.args["page"] != nil)
        }
    }
}

extension CredentialEchoTests.Exchange {
    func with(url: URL) -> Self {
        var copy = self
        copy.url = url
        return copy
    }
}
