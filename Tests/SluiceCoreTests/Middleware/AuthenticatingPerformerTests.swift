import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

private struct Secure: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }
}

private struct RefreshFailed: Error, Equatable {}

/// A request that names its own credential.
private struct Preauthorized: Request {
    typealias ResponseObject = Data
    var url: URL
    var authorization: String

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return request
    }
}

@Suite struct AuthenticatingPerformerTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/secure") { request in
            request.header("Authorization") == "Bearer fresh"
                ? .text("welcome") : LoopbackServer.Response.text("expired", status: 401)
        }
    }

    private func store(refreshes: Locked<Int>, failing: Bool = false) -> CredentialStore {
        CredentialStore(credential: CredentialStore.Credential(authorization: "Bearer stale"), hosts: ["127.0.0.1"]) {
            _ in
            refreshes.withLock { $0 += 1 }
            // No wait is needed to make concurrent 401s share the refresh: each asks for a refresh after the
            // credential it was refused with, and a refresh that already replaced it (or failed) is shared.
            await Task.yield()
            if failing {
                throw RefreshFailed()
            }
            return CredentialStore.Credential(authorization: "Bearer fresh")
        }
    }

    private func concurrently(
        _ count: Int,
        _ client: APIClient,
        path: String = "/secure"
    ) async -> [Result<Data, SluiceError>] {
        let url = server.url(path)
        return await withTaskGroup(of: Result<Data, SluiceError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(SluiceError) {
                        return .success(try await client.perform(Secure(url: url)))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func leavesARequestsOwnAuthorizationAlone() async throws {
        let refreshes = Locked(0)
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer().authenticated(by: store(refreshes: refreshes))
        )
        server.route("GET", "/sign-in") { request in
            request.header("Authorization") == "Basic dXNlcjpwdw==" ? .text("signed in") : .text("no", status: 401)
        }
        let signIn = Preauthorized(url: server.url("/sign-in"), authorization: "Basic dXNlcjpwdw==")
        #expect(try await client.perform(signIn) == Data("signed in".utf8))
        // A 401 to such a request is the caller's to handle: no refresh, no replay.
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Preauthorized(url: server.url("/secure"), authorization: "Basic bm8="))
        }
        #expect(error.status == .unauthorized)
        #expect(refreshes.withLock { $0 } == 0)
        #expect(server.receivedRequests.map { $0.header("Authorization") } == ["Basic dXNlcjpwdw==", "Basic bm8="])
    }

    @Test func refreshesOnceForFiftyConcurrentRequestsAndReplaysEach() async throws {
        // The server holds its 401s until all 50 stale requests have arrived, so that however slow the machine,
        // none is sent after the refresh has begun: each of the 50 is refused, then replayed.
        let stale = Signal("50 stale requests at the server")
        server.route("GET", "/gathered") { request in
            guard request.header("Authorization") != "Bearer fresh" else { return .text("welcome") }
            stale.fire()
            // Each on its connection's thread. One that runs out of time answers anyway, and the counts below fail.
            try? stale.block(count: 50)
            return LoopbackServer.Response.text("expired", status: 401)
        }
        let refreshes = Locked(0)
        let tokens = store(refreshes: refreshes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 50
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer(configuration: configuration).authenticated(by: tokens)
        )
        let results = await concurrently(50, client, path: "/gathered")
        #expect(results.filter { (try? $0.get()) == Data("welcome".utf8) }.count == 50)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await tokens.refreshes == 1)
        let received = server.receivedRequests
        #expect(received.count == 100)
        #expect(received.filter { $0.header("Authorization") == "Bearer fresh" }.count == 50)
    }

    @Test func failsEveryWaiterWithTheRefreshError() async throws {
        let refreshes = Locked(0)
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer().authenticated(by: store(refreshes: refreshes, failing: true))
        )
        let results = await concurrently(50, client)
        let errors = results.compactMap { result -> SluiceError? in
            if case .failure(let error) = result { error } else { nil }
        }
        #expect(errors.count == 50)
        #expect(errors.allSatisfy { $0.underlyingError as? RefreshFailed == RefreshFailed() })
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test func sharesAFailedRefreshWithA401ThatArrivesAfterIt() async throws {
        let failed = Signal("the refresh failed")
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer stale"),
            hosts: ["api.example.com"]
        ) {
            _ in
            defer { failed.fire() }
            throw RefreshFailed()
        }
        // Both requests go out with the stale credential; the second one's 401 comes back after the refresh failed.
        let lateSent = Signal("the late request sent")
        let stub = StubPerformer { request in
            if request.url?.path == "/late" {
                lateSent.fire()
                try await failed.wait()
            }
            return HTTPResponse(status: .unauthorized)
        }
        let client = APIClient(requestPerformer: stub.authenticated(by: tokens))
        let url = try #require(URL(string: "https://api.example.com/late"))
        let late = Task { try await client.perform(Secure(url: url)) }
        try await lateSent.wait()
        #expect(stub.requests.count == 1)
        let early = try await #require(throws: SluiceError.self) {
            try await client.perform(Secure(url: try #require(URL(string: "https://api.example.com/early"))))
        }
        let lateError = try await #require(throws: SluiceError.self) { try await late.value }
        #expect(early.underlyingError is RefreshFailed)
        #expect(lateError.underlyingError is RefreshFailed)
        #expect(await tokens.refreshes == 1)
        // A new request, sent after the failure, tries again.
        _ = await #expect(throws: SluiceError.self) { try await client.perform(Secure(url: url)) }
        #expect(await tokens.refreshes == 2)
    }

    @Test func replaysAStreamedBodyFromItsStart() async throws {
        let payload = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) })
        server.route("POST", "/upload") { request in
            request.header("Authorization") == "Bearer fresh"
                ? .text("stored \(request.body.count)") : LoopbackServer.Response.text("expired", status: 401)
        }
        struct Upload: Request {
            typealias ResponseObject = Data
            var url: URL
            var payload: Data
            func build() throws -> URLRequest {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.httpBodyStream = InputStream(data: payload)
                request.setValue(String(payload.count), forHTTPHeaderField: "Content-Length")
                return request
            }
        }
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer().authenticated(by: store(refreshes: Locked(0)))
        )
        let reply = try await client.perform(Upload(url: server.url("/upload"), payload: payload))
        #expect(String(decoding: reply, as: UTF8.self) == "stored 1000")
        #expect(server.receivedRequests.map(\.body) == [payload, payload])
    }

    @Test func neverRefreshesTwiceForOneRequest() async throws {
        server.route("GET", "/always-401", response: .text("no", status: 401))
        let refreshes = Locked(0)
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer().authenticated(by: store(refreshes: refreshes))
        )
        let error = try await #require(throws: SluiceError.self) {
            try await client.perform(Secure(url: server.url("/always-401")))
        }
        #expect(error.status == .unauthorized)
        #expect(refreshes.withLock { $0 } == 1)
        #expect(server.receivedRequests.count == 2)
    }

    @Test func sendsTheCredentialOnlyToItsHosts() async throws {
        let other = try LoopbackServer()
        other.route("GET", "/elsewhere", response: .text("hi"))
        let refreshes = Locked(0)
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer().authenticated(by: store(refreshes: refreshes))
        )
        // The same machine under another name is another host.
        let elsewhere = try #require(URL(string: "http://localhost:\(other.port)/elsewhere"))
        _ = try await client.perform(Secure(url: elsewhere))
        #expect(other.receivedRequests.first?.header("Authorization") == nil)
    }

    @Test func dropsTheCredentialOnARedirectToAnotherHost() async throws {
        let other = try LoopbackServer()
        other.route("GET", "/landing", response: .text("landed"))
        server.route(
            "GET",
            "/away",
            response: LoopbackServer.Response(status: 302).addingHeader(
                "Location",
                "http://localhost:\(other.port)/landing"
            )
        )
        server.route("GET", "/home", response: LoopbackServer.Response(status: 302).addingHeader("Location", "/secure"))
        let tokens = CredentialStore(
            credential: CredentialStore.Credential(authorization: "Bearer fresh"),
            hosts: ["127.0.0.1"]
        ) { _ in
            CredentialStore.Credential(authorization: "Bearer fresh")
        }
        let client = APIClient(requestPerformer: NetworkRequestPerformer().authenticated(by: tokens))
        #expect(try await client.perform(Secure(url: server.url("/away"))) == Data("landed".utf8))
        #expect(other.receivedRequests.count == 1)
        #expect(other.receivedRequests.first?.header("Authorization") == nil)
        // A redirect within the same origin keeps it.
        #expect(try await client.perform(Secure(url: server.url("/home"))) == Data("welcome".utf8))
        #expect(server.receivedRequests.last?.header("Authorization") == "Bearer fresh")
    }

    @Test func neverShowsTheSecretInItsDescription() {
        #expect(
            CredentialStore.Credential(authorization: "Bearer s3cr3t").description
                == "Credential(Bearer ***)"
        )
    }
}
