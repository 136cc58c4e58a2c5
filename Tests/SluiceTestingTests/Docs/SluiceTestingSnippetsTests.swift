// The snippet of the SluiceTesting catalog's landing page, verbatim, run.
import ClientFixtures
import SluiceCore
import SluiceTesting
import Testing

@Suite struct SluiceTestingSnippetsTests {
    @Test func theLandingPagesMockAnswersAndVerifies() async throws {
        let mock = MockClient()
        mock.stub(GetUser.self, .json(#"{"id": 42, "name": "Ada"}"#))
        let user = try await mock.perform(GetUser(id: 42))
        try mock.verify()
        #expect(user == User(id: 42, name: "Ada"))
        #expect(mock.registeredStubs.count == 1)
    }
}
