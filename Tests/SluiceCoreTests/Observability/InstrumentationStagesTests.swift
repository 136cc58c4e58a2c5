import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// Records every scope as it begins, and answers whether it wants a request's stages as it was made to.
private final class ScopeRecorder: RequestInstrumentation {
    let wantsStages: Bool
    private let recorded = Locked<[InstrumentationScope]>([])

    init(wantsStages: Bool) {
        self.wantsStages = wantsStages
    }

    func begin(_ scope: InstrumentationScope) {
        recorded.withLock { $0.append(scope) }
    }

    func end(_ scope: InstrumentationScope) {}

    func recordsStages(of request: InstrumentationScope) -> Bool { wantsStages }

    var scopes: [InstrumentationScope] { recorded.withLock { $0 } }
}

/// A request for a URL as given, with a template.
private struct Get: Request {
    typealias ResponseObject = Data
    var url: URL

    func build() throws -> URLRequest { URLRequest(url: url) }

    var urlTemplate: String? { "/items/{id}" }
}

/// What an instrumentation is spared: the stages it declines, and the attributes it does not read until it reads them.
@Suite struct InstrumentationStagesTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("GET", "/items/7") { _ in .text("item").addingHeader("Cache-Control", "max-age=600") }
    }

    /// An instrumentation that declines the stages gets the request and its attempt, directly under it, and no stage,
    /// not even the cache's.
    @Test func makesNoStageForAnInstrumentationThatDeclinesThem() async throws {
        let recorder = ScopeRecorder(wantsStages: false)
        let performer = SocketRequestPerformer().cached(in: HTTPCache())
        let client = APIClient(requestPerformer: performer, instrumentation: recorder)
        _ = try await client.perform(Get(url: server.url("/items/7")))
        _ = try await client.perform(Get(url: server.url("/items/7")))
        let scopes = recorder.scopes
        #expect(scopes.map(\.kind) == [.request, .attempt, .connection, .connection, .request])
        let requests = scopes.filter { $0.kind == .request }
        let attempt = try #require(scopes.first { $0.kind == .attempt })
        #expect(attempt.parent === requests.first)
        #expect(requests.map { $0.attributes[.cacheOutcome] } == [.string("miss"), .string("hit")])
    }

    /// The same requests with the stages wanted, as by default: each stage is there, the cache's under the transport.
    @Test func makesEveryStageForAnInstrumentationThatWantsThem() async throws {
        let recorder = ScopeRecorder(wantsStages: true)
        let performer = SocketRequestPerformer().cached(in: HTTPCache())
        let client = APIClient(requestPerformer: performer, instrumentation: recorder)
        _ = try await client.perform(Get(url: server.url("/items/7")))
        let stages = recorder.scopes.filter { $0.kind == .stage }
        #expect(stages.map(\.name) == ["build", "transport", "cache"])
        #expect(stages.last?.parent?.name == "transport")
    }

    /// A request's attributes, read only once it has ended, are those it began with, then those its end added, in
    /// the order they were set.
    @Test func keepsTheOrderOfTheAttributesReadAfterTheEnd() async throws {
        let recorder = ScopeRecorder(wantsStages: true)
        let client = APIClient(requestPerformer: SocketRequestPerformer(), instrumentation: recorder)
        _ = try await client.perform(Get(url: server.url("/items/7")))
        let request = try #require(recorder.scopes.first)
        #expect(
            request.attributes.map(\.key.name) == [
                "http.request.method", "server.address", "server.port", "url.full", "url.template", "sluice.request.id",
                "http.response.status_code", "http.response.body.size",
            ]
        )
        #expect(request.attributes[.urlFull] == .string("http://127.0.0.1:\(server.port)/items/7"))
    }

    /// `url.full` shows a query whose names the redaction does not hide as it is, and hides the value of one it
    /// does, however it is spelled or percent-encoded.
    @Test(arguments: [
        ("page=1&sort=name", "page=1&sort=name"),
        ("page=1&api_key=k3y", "page=1&api_key=%3Credacted%3E"),
        ("page=1&Access-Token=k3y", "page=1&Access-Token=%3Credacted%3E"),
        ("page=1&access%5Ftoken=k3y", "page=1&access%5Ftoken=%3Credacted%3E"),
    ])
    func hidesOnlyTheQueryItemsTheRedactionNames(_ query: String, _ shown: String) async throws {
        let recorder = ScopeRecorder(wantsStages: false)
        let performer = StubPerformer { _ in HTTPResponse(status: .ok) }
        let client = APIClient(requestPerformer: performer, instrumentation: recorder)
        let url = try #require(URL(string: "https://api.example.com/items/7?\(query)"))
        _ = try await client.perform(Get(url: url))
        let request = try #require(recorder.scopes.first)
        #expect(request.attributes[.urlFull] == .string("https://api.example.com/items/7?\(shown)"))
    }
}
