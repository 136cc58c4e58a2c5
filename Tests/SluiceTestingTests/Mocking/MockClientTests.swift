import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

private struct Profile: Codable, Equatable, Sendable {
    var id: Int
    var name: String
}

private struct ProfileProblem: Decodable, Sendable {
    var message: String
}

private struct GetProfile: Request, Equatable {
    typealias ResponseObject = Profile
    var id: Int

    func build() throws -> URLRequest {
        URLRequest(url: try testURL("https://api.example.com/profiles/\(id)"))
    }

    func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        try JSONDocumentDecoder().decode(ProfileProblem.self, from: response.body)
    }
}

private struct DeleteProfile: Request {
    typealias ResponseObject = Void
    var id: Int

    func build() throws -> URLRequest {
        var request = URLRequest(url: try testURL("https://api.example.com/profiles/\(id)"))
        request.httpMethod = "DELETE"
        return request
    }
}

/// The code under test: a model that loads profiles through any client.
private struct ProfileLoader {
    let client: any Client

    func names(of ids: [Int]) async throws -> [String] {
        var names: [String] = []
        for id in ids {
            names.append(try await client.perform(GetProfile(id: id)).name)
        }
        return names
    }
}

@Suite struct MockClientTests {
    @Test func matchesStubsInTheOrderTheyWereRegistered() async throws {
        let mock = MockClient()
        mock.stub(matching: GetProfile(id: 1), .value(Profile(id: 1, name: "Ada")))
        mock.stub(GetProfile.self, where: { $0.id > 100 }, .value(Profile(id: 0, name: "big")))
        mock.stub(GetProfile.self, .value(Profile(id: 0, name: "anyone")))
        let loader = ProfileLoader(client: mock)
        #expect(try await loader.names(of: [1, 101, 2]) == ["Ada", "big", "anyone"])
    }

    @Test func runsHTTPResponsesThroughTheRealStages() async throws {
        let mock = MockClient()
        mock.stub(GetProfile.self, where: { $0.id == 1 }, .json(#"{"id": 1, "name": "Ada"}"#))
        mock.stub(GetProfile.self, where: { $0.id == 2 }, .json(#"{"id": "two"}"#))
        mock.stub(GetProfile.self, where: { $0.id == 3 }, .json(#"{"message": "gone"}"#, status: 410))
        #expect(try await mock.perform(GetProfile(id: 1)) == Profile(id: 1, name: "Ada"))
        let parse = try await #require(throws: SluiceError.self) { try await mock.perform(GetProfile(id: 2)) }
        #expect(parse.code == .parse)
        #expect(parse.jsonPath == "$.id")
        let status = try await #require(throws: SluiceError.self) { try await mock.perform(GetProfile(id: 3)) }
        #expect(status.status == .gone)
        #expect(status.errorResponse(as: ProfileProblem.self)?.message == "gone")
    }

    @Test func throwsTheErrorAStubGives() async throws {
        let mock = MockClient()
        mock.stub(DeleteProfile.self, .failure(SluiceError(.timedOut, message: "too slow")))
        let error = try await #require(throws: SluiceError.self) { try await mock.perform(DeleteProfile(id: 1)) }
        #expect(error.code == .timedOut)
        #expect(error.message == "too slow")
    }

    @Test func failsAtOnceWhenNoStubMatchesListingThem() async throws {
        let mock = MockClient()
        mock.stub(matching: GetProfile(id: 1), .value(Profile(id: 1, name: "Ada")))
        mock.stub(DeleteProfile.self, .value(()))
        let error = try await #require(throws: SluiceError.self) { try await mock.perform(GetProfile(id: 7)) }
        #expect(
            error.message == """
                MockClient has no stub for GetProfile: GetProfile(id: 7); the stubs are:
                  1. GetProfile(id: 1)
                  2. any DeleteProfile
                """
        )
        #expect(error.request?.url?.path == "/profiles/7")
        let empty = try await #require(throws: SluiceError.self) { try await MockClient().perform(GetProfile(id: 7)) }
        #expect(empty.message == "MockClient has no stub for GetProfile: GetProfile(id: 7); no stubs are registered")
    }

    @Test func verifiesThatStubsWereUsedAsExpected() async throws {
        let mock = MockClient()
        mock.stub(GetProfile.self, .value(Profile(id: 1, name: "Ada"))).expect(calls: 2)
        mock.stub(DeleteProfile.self, .value(()))
        mock.stub(matching: GetProfile(id: 9), .value(Profile(id: 9, name: "never"))).expect(calls: 0...)
        _ = try await mock.perform(GetProfile(id: 1))
        let error = try #require(throws: SluiceTestingError.self) { try mock.verify() }
        #expect(
            error.kind
                == .unmetExpectations([
                    "any GetProfile: expected 2 calls, got 1", "any DeleteProfile: expected at least 1 call, got 0",
                ])
        )
        #expect(
            error.description == """
                2 stubs were not used as expected:
                  - any GetProfile: expected 2 calls, got 1
                  - any DeleteProfile: expected at least 1 call, got 0
                """
        )
        _ = try await mock.perform(GetProfile(id: 1))
        try await mock.perform(DeleteProfile(id: 1))
        try mock.verify()
        #expect(mock.registeredStubs.map(\.calls) == [2, 1, 0])
    }

    @Test func waitsForADelayedAnswerAndStopsWhenCancelled() async throws {
        let mock = MockClient()
        // The mock matches a request to its stub just before it waits out the stub's delay.
        let matched = Signal("the request matched to its stub, the delay next")
        mock.stub(
            GetProfile.self,
            where: { _ in
                matched.fire()
                return true
            },
            MockClient.Response.value(Profile(id: 1, name: "Ada")).delayed(by: .seconds(30))
        )
        let task = Task { try await mock.perform(GetProfile(id: 1)) }
        try await matched.wait()
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
    }

    /// One mock shared by tests that run in parallel, each with its own stubs for the same request.
    static let shared = MockClient()

    @Test(arguments: ["Ada", "Grace", "Linus", "Margaret"])
    func keepsScopedStubsApartInParallel(_ name: String) async throws {
        try await Self.shared.withScope {
            Self.shared.stub(
                GetProfile.self,
                MockClient.Response.value(Profile(id: 1, name: name)).delayed(by: .milliseconds(20))
            )
            for _ in 0..<5 {
                #expect(try await Self.shared.perform(GetProfile(id: 1)).name == name)
            }
            // Child tasks see their parent's stubs.
            async let child = Self.shared.perform(GetProfile(id: 1))
            #expect(try await child.name == name)
            try Self.shared.verify()
        }
        #expect(Self.shared.registeredStubs.isEmpty)
    }
}
