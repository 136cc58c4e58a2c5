import ClientFixtures
import Foundation
import SluiceEndpoints
import SluiceTesting
import Testing

private struct Repo: Decodable, Equatable, Sendable {
    var id: Int
    var name: String
}

private struct ListRepos: EndpointDefinition {
    typealias Response = ArrayResponse<Repo>
    static let path = "/user/repos"
    var method: HTTPMethod { .get }
    var parameters: [String: Any] { ["per_page": 2, "sort": "name", "type": ["owner", "member"]] }
}

private struct CreateRepo: EndpointDefinition {
    typealias Response = SingleResponse<Repo>
    static let path = "/user/repos"
    var name: String
    var method: HTTPMethod { .post }
    var parameters: [String: Any] { ["name": name, "private": true, "topics": ["swift"], "owner": ["id": 7]] }
}

private struct DeleteRepo: EndpointDefinition {
    typealias Response = EmptyResponse
    static let path = "/repos/1"
    var method: HTTPMethod { .delete }
}

/// One definition for several methods, to compare where each puts the same parameters.
private struct Search: EndpointDefinition {
    typealias Response = EmptyResponse
    static let path = "/search"
    var method: HTTPMethod
    var parameters: [String: Any] { ["q": "swift", "page": 2, "tags": ["a", "b"]] }
}

private struct StagingOnly: EndpointDefinition {
    typealias Response = SingleResponse<Repo>
    static let path = "/beta"
    static var environment: Environment { .staging }
    var method: HTTPMethod { .get }
}

private struct NotYetOnTheServer: EndpointDefinition {
    typealias Response = SingleResponse<Repo>
    static let path = "/future"
    static var environment: Environment { .mock }
    var method: HTTPMethod { .get }
}

private struct BadParameters: EndpointDefinition {
    typealias Response = EmptyResponse
    static let path = "/bad"
    var method: HTTPMethod { .post }
    var parameters: [String: Any] { ["when": ["at": Date()]] }
}

/// `{"data": ...}`: an envelope declared by the user, as the repository layer leaves envelopes to them.
private struct Enveloped<T: Decodable>: ResponseDefinition {
    let result: T

    init(json: Any) throws {
        let document = try JSON.parse(json)
        guard let data = document["data"] else {
            throw DecodingError.keyNotFound(
                JSONKey("data"),
                .init(codingPath: [], debugDescription: "no \"data\" envelope")
            )
        }
        result = try data.decode(T.self)
    }
}

private struct EnvelopedRepo: EndpointDefinition {
    typealias Response = Enveloped<Repo>
    static let path = "/enveloped"
    var method: HTTPMethod { .get }
}

@Suite struct RepositoryTests {
    let production: LoopbackServer
    let staging: LoopbackServer
    let repository: Repository

    init() throws {
        production = try LoopbackServer()
        staging = try LoopbackServer()
        production.route("GET", "/user/repos", response: .json(#"[{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]"#))
        production.route("POST", "/user/repos", response: .json(#"{"id": 3, "name": "new"}"#, status: 201))
        production.route("DELETE", "/repos/1", response: LoopbackServer.Response(status: 204))
        production.route("GET", "/enveloped", response: .json(#"{"data": {"id": 5, "name": "wrapped"}}"#))
        staging.route("GET", "/beta", response: .json(#"{"id": 9, "name": "beta"}"#))
        repository = Repository(server: Server([.production: production.baseURL, .staging: staging.baseURL]))
    }

    @Test func putsParametersInTheQueryForGet() async throws {
        let repos = try await repository.perform(ListRepos())
        #expect(repos == [Repo(id: 1, name: "a"), Repo(id: 2, name: "b")])
        let received = try #require(production.receivedRequests.last)
        #expect(received.method == "GET")
        #expect(
            Set(received.queryItems.map { "\($0.name)=\($0.value ?? "")" }) == [
                "per_page=2", "sort=name", "type=owner", "type=member",
            ]
        )
        #expect(received.body.isEmpty)
    }

    @Test(arguments: [HTTPMethod.head, .delete])
    func putsParametersInTheQuery(for method: HTTPMethod) async throws {
        let expected: Set = ["q=swift", "page=2", "tags=a", "tags=b"]
        let built = try GenericRequest(Search(method: method), baseURL: production.baseURL).build()
        #expect(built.httpMethod == method.rawValue)
        let url = try #require(built.url)
        #expect(url.path == "/search")
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(Set(items.map { "\($0.name)=\($0.value ?? "")" }) == expected)
        #expect(built.httpBody == nil)
        #expect(built.value(forHTTPHeaderField: "Content-Type") == nil)

        production.route(method.rawValue, "/search", response: LoopbackServer.Response(status: 204))
        try await repository.perform(Search(method: method))
        let received = try #require(production.receivedRequests.last)
        #expect(received.method == method.rawValue)
        #expect(Set(received.queryItems.map { "\($0.name)=\($0.value ?? "")" }) == expected)
        #expect(received.body.isEmpty)
        #expect(received.header("Content-Type") == nil)
    }

    @Test func putsParametersInAJSONBodyForPost() async throws {
        let repo = try await repository.perform(CreateRepo(name: "sluice"))
        #expect(repo == Repo(id: 3, name: "new"))
        let received = try #require(production.receivedRequests.last)
        #expect(received.query == nil)
        #expect(received.header("Content-Type") == "application/json")
        #expect(
            try JSON(parsing: received.body) == [
                "name": "sluice", "private": true, "topics": ["swift"], "owner": ["id": 7],
            ]
        )
    }

    @Test func ignoresTheBodyOfAnEmptyResponse() async throws {
        try await repository.perform(DeleteRepo())
        #expect(production.receivedRequests.last?.method == "DELETE")
    }

    @Test func decodesAnEnvelopeTheUserDeclared() async throws {
        #expect(try await repository.perform(EnvelopedRepo()) == Repo(id: 5, name: "wrapped"))
    }

    @Test func callsAnEndpointInTheEnvironmentItDeclares() async throws {
        #expect(try await repository.perform(StagingOnly()).name == "beta")
        #expect(staging.receivedRequests.count == 1)
        #expect(production.receivedRequests.isEmpty)
    }

    @Test func forcedEnvironmentSendsEveryEndpointThere() async throws {
        staging.route("GET", "/user/repos", response: .json(#"[{"id": 8, "name": "staged"}]"#))
        let events = repository.events
        repository.forcedEnvironment = .staging
        #expect(try await repository.perform(ListRepos()) == [Repo(id: 8, name: "staged")])
        let received = try #require(staging.receivedRequests.last)
        #expect(received.method == "GET")
        #expect(received.path == "/user/repos")
        #expect(
            Set(received.queryItems.map { "\($0.name)=\($0.value ?? "")" }) == [
                "per_page=2", "sort=name", "type=owner", "type=member",
            ]
        )
        #expect(production.receivedRequests.isEmpty)
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next()?.environment == .staging)
    }

    @Test func switchingTheServersEnvironmentRedirectsLaterRequests() async throws {
        repository.register(json: #"{"id": 42, "name": "from fixture"}"#, for: NotYetOnTheServer.self)
        staging.route("GET", "/user/repos", response: .json(#"[{"id": 8, "name": "staged"}]"#))
        #expect(try await repository.perform(ListRepos()).map(\.name) == ["a", "b"])
        #expect(production.receivedRequests.count == 1)

        repository.server.environment = .staging
        #expect(try await repository.perform(ListRepos()).map(\.name) == ["staged"])
        #expect(staging.receivedRequests.map(\.path) == ["/user/repos"])
        // An endpoint that declares its own environment keeps it.
        #expect(try await repository.perform(NotYetOnTheServer()).name == "from fixture")
        #expect(try await repository.perform(StagingOnly()).name == "beta")
        #expect(production.receivedRequests.count == 1)

        repository.server.environment = .production
        _ = try await repository.perform(ListRepos())
        #expect(production.receivedRequests.count == 2)
        #expect(staging.receivedRequests.count == 2)
    }

    @Test func servesTheMockEnvironmentFromFixturesWithoutAConnection() async throws {
        repository.register(json: #"{"id": 42, "name": "from fixture"}"#, for: NotYetOnTheServer.self)
        #expect(try await repository.perform(NotYetOnTheServer()).name == "from fixture")
        repository.forcedEnvironment = .mock
        repository.register(json: #"[{"id": 1, "name": "mocked"}]"#, for: ListRepos.self)
        #expect(try await repository.perform(ListRepos()).map(\.name) == ["mocked"])
        let missing = try await #require(throws: SluiceError.self) {
            try await repository.perform(CreateRepo(name: "x"))
        }
        #expect(missing.message == "no fixture is registered for CreateRepo in the mock environment")
        #expect(production.acceptedConnections == 0)
        #expect(staging.acceptedConnections == 0)
    }

    @Test func reportsAnEnvironmentWithoutABaseURL() async throws {
        let bare = Repository(server: Server([.production: production.baseURL]))
        let error = try await #require(throws: SluiceError.self) { try await bare.perform(StagingOnly()) }
        #expect(error.code == .build)
        #expect(
            error.message == "cannot build the request: no base URL for the staging environment; configured: production"
        )
    }

    @Test func reportsAParameterJSONCannotRepresent() async throws {
        let error = try await #require(throws: SluiceError.self) { try await repository.perform(BadParameters()) }
        #expect(error.code == .build)
        #expect(
            error.message.hasPrefix("cannot build the request: BadParameters.parameters.when.at: expected a JSON value")
        )
        #expect(production.receivedRequests.isEmpty)
    }

    @Test func acceptsJSONSerializationOutputInResponseDefinitions() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"[{"id": 1, "name": "x"}]"#.utf8))
        #expect(try ArrayResponse<Repo>(json: object).result == [Repo(id: 1, name: "x")])
        let single = try JSONSerialization.jsonObject(with: Data(#"{"id": 2, "name": "y"}"#.utf8))
        #expect(try SingleResponse<Repo>(json: single).result == Repo(id: 2, name: "y"))
        #expect(throws: DecodingError.self) { try SingleResponse<Repo>(json: ["id": "2"]) }
    }
}

@Suite struct RepositoryEventTests {
    @Test func publishesEveryRequestToEverySubscriber() async throws {
        let server = try LoopbackServer()
        server.route("GET", "/user/repos", response: .json("[]"))
        server.route("POST", "/user/repos", response: .json(#"{"message": "no"}"#, status: 422))
        let repository = Repository(server: Server([.production: server.baseURL]))
        let first = repository.events
        let second = repository.events
        #expect(repository.subscriberCount == 2)

        _ = try await repository.perform(ListRepos())
        await #expect(throws: SluiceError.self) { try await repository.perform(CreateRepo(name: "x")) }

        for stream in [first, second] {
            var seen: [String] = []
            for await event in stream {
                seen.append("\(event.sequence) \(event.requestID) \(event.endpoint) \(event.kind)")
                if seen.count == 4 {
                    break
                }
            }
            #expect(
                seen == [
                    "1 1 ListRepos started", "2 1 ListRepos succeeded", "3 2 CreateRepo started",
                    "4 2 CreateRepo failed",
                ]
            )
        }
    }

    @Test func reportsACancelledRequest() async throws {
        let server = try LoopbackServer()
        server.route(
            "GET",
            "/user/repos",
            response: LoopbackServer.Response(body: Data("[]".utf8), delay: .seconds(30))
        )
        let repository = Repository(server: Server([.production: server.baseURL]))
        let events = repository.events
        let task = Task { try await repository.perform(ListRepos()) }
        var iterator = events.makeAsyncIterator()
        let started = await iterator.next()
        #expect(started?.kind == .started)
        task.cancel()
        let ended = await iterator.next()
        #expect(ended?.kind == .cancelled)
        #expect(ended?.error?.code == .cancelled)
        #expect(ended?.requestID == started?.requestID)
    }

    @Test func showsEverySubscriberACancelledRequestStartAndEnd() async throws {
        let server = try LoopbackServer()
        server.route(
            "GET",
            "/user/repos",
            response: LoopbackServer.Response(body: Data("[]".utf8), delay: .seconds(30))
        )
        let repository = Repository(server: Server([.production: server.baseURL]))
        var subscribers = (0..<3).map { _ in repository.events.makeAsyncIterator() }
        #expect(repository.subscriberCount == 3)
        let task = Task { try await repository.perform(ListRepos()) }
        for index in subscribers.indices {
            let started = try #require(await subscribers[index].next())
            #expect("\(started.sequence) \(started.requestID) \(started.kind)" == "1 1 started", "subscriber \(index)")
        }
        task.cancel()
        await #expect(throws: SluiceError.self) { try await task.value }
        for index in subscribers.indices {
            let ended = try #require(await subscribers[index].next())
            #expect("\(ended.sequence) \(ended.requestID) \(ended.kind)" == "2 1 cancelled", "subscriber \(index)")
            #expect(ended.error?.code == .cancelled, "subscriber \(index)")
        }
    }

    @Test func aFailureEventCarriesItsError() async throws {
        let server = try LoopbackServer()
        server.route("POST", "/user/repos", response: .json(#"{"message": "name already exists"}"#, status: 422))
        let repository = Repository(server: Server([.production: server.baseURL]))
        var events = repository.events.makeAsyncIterator()
        let thrown = try await #require(throws: SluiceError.self) {
            try await repository.perform(CreateRepo(name: "taken"))
        }
        #expect(await events.next()?.kind == .started)
        let failed = try #require(await events.next())
        #expect(failed.kind == .failed)
        let error = try #require(failed.error)
        #expect(error.code == .status)
        #expect(error.message == "unacceptable status 422 Unprocessable Content")
        #expect(error.status == .unprocessableContent)
        #expect(error.bodyExcerpt == #"{"message": "name already exists"}"#)
        #expect(error.message == thrown.message)
        #expect(failed.description.hasPrefix("#2 request 1 POST CreateRepo [production] failed after "))
        #expect(failed.description.hasSuffix(": \(error.message)"))
    }

    @Test func dropsTheOldestEventsOfASlowSubscriberAndNeverBlocks() async throws {
        let repository = Repository(server: Server(), eventBufferSize: 4)
        repository.forcedEnvironment = .mock
        repository.register(json: "[]", for: ListRepos.self)
        let slow = repository.events
        for _ in 0..<50 {
            _ = try await repository.perform(ListRepos())
        }
        var sequences: [UInt64] = []
        var iterator = slow.makeAsyncIterator()
        for _ in 0..<4 {
            if let event = await iterator.next() {
                sequences.append(event.sequence)
            }
        }
        // 100 events were published; the subscriber kept the newest 4.
        #expect(sequences == [97, 98, 99, 100])
    }

    @Test func removesSubscribersThatStopIterating() async throws {
        let repository = Repository(server: Server(), eventBufferSize: 8)
        repository.forcedEnvironment = .mock
        repository.register(json: "[]", for: ListRepos.self)
        // Reading `events` subscribes; each loop says when it has.
        let consumerSubscribed = Signal("the consumer subscribed")
        let consumer = Task {
            let events = repository.events
            consumerSubscribed.fire()
            for await event in events where event.kind == .succeeded {
                return event.sequence
            }
            return 0
        }
        try await consumerSubscribed.wait()
        #expect(repository.subscriberCount == 1)
        _ = try await repository.perform(ListRepos())
        #expect(await consumer.value == 2)
        // The loop's iterator, which owned the subscription, was released before the task ended.
        #expect(repository.subscriberCount == 0)

        let loopSubscribed = Signal("the loop subscribed")
        let cancelled = Task {
            let events = repository.events
            loopSubscribed.fire()
            for await _ in events {}
        }
        try await loopSubscribed.wait()
        #expect(repository.subscriberCount == 1)
        cancelled.cancel()
        await cancelled.value
        #expect(repository.subscriberCount == 0)
    }

    @Test func aKeptStreamHoldsNoSubscriptionOnceItsLoopEnds() async throws {
        let repository = Repository(server: Server(), eventBufferSize: 8)
        repository.forcedEnvironment = .mock
        repository.register(json: "[]", for: ListRepos.self)
        let kept = repository.events
        #expect(repository.subscriberCount == 1)
        _ = try await repository.perform(ListRepos())
        for await event in kept {
            #expect(event.sequence == 1)
            break
        }
        #expect(repository.subscriberCount == 0)

        // Nothing is buffered for the kept stream until it is iterated again, which subscribes from then on.
        _ = try await repository.perform(ListRepos())
        #expect(repository.subscriberCount == 0)
        var again = kept.makeAsyncIterator()
        #expect(repository.subscriberCount == 1)
        _ = try await repository.perform(ListRepos())
        #expect(await again.next()?.sequence == 5)
        withExtendedLifetime(kept) {}
    }

    @Test func endsASubscriptionWhenItsIteratorIsReleased() async throws {
        let repository = Repository(server: Server(), eventBufferSize: 8)
        repository.forcedEnvironment = .mock
        repository.register(json: "[]", for: ListRepos.self)
        let kept = repository.events
        let copy = kept
        do {
            var first = kept.makeAsyncIterator()
            var second = copy.makeAsyncIterator()
            #expect(repository.subscriberCount == 2)
            _ = try await repository.perform(ListRepos())
            #expect(await first.next()?.kind == .started)
            #expect(await second.next()?.kind == .started)
        }
        #expect(repository.subscriberCount == 0)
        withExtendedLifetime((kept, copy)) {}
    }
}
