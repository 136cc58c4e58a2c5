// The "Move time yourself" snippet of the "Testing with Sluice" article, verbatim, and with it the lines of the
// `TestClock` documentation; its test function runs as a test here. The article's `Profile` and `GetProfile` are
// declared again, as the snippet expects them.
import Foundation
import Sluice
import SluiceTesting
import Testing

private struct Profile: Decodable, Sendable {
    let id: Int
    let name: String
}

private struct GetProfile: Request {
    typealias ResponseObject = Profile
    let id: Int

    func build() throws -> URLRequest {
        guard let url = URL(string: "https://api.example.com/profiles/\(id)") else { throw URLError(.badURL) }
        return URLRequest(url: url)
    }
}

@Suite struct TestClockSnippetsTests {
    @Test func waitsAsLongAsRetryAfterAsks() async throws {
        let clock = TestClock()
        let stub = StubPerformer(responses: [
            HTTPResponse(status: .serviceUnavailable, headers: ["Retry-After": "2"]),
            HTTPResponse(status: .ok, body: Data(#"{"id": 1, "name": "Ada"}"#.utf8)),
        ])
        let client = APIClient(requestPerformer: stub.retrying(.default, clock: clock))
        let profile = Task { try await client.perform(GetProfile(id: 1)) }

        await clock.waitForSleepers()
        #expect(clock.sleepers == [clock.now.advanced(by: .seconds(2))])
        clock.advance(by: .seconds(2))
        #expect(try await profile.value.name == "Ada")
    }
}
