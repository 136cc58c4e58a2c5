import Foundation
import SluiceCore
import SluiceEndpoints
import SluiceTesting
import Testing

private struct Member: Codable, Equatable, Sendable {
    var id: Int
    var login: String
}

private enum MembersAPI: APIDefinition, Equatable {
    case list
    case find(login: String)

    var baseURL: URL { URL(fileURLWithPath: "/") }
    var path: String { "/members" }
    var method: HTTPMethod { .GET }
}

private struct Following: EndpointDefinition {
    typealias Response = ArrayResponse<Member>
    static let path = "/following"
    var method: HTTPMethod { .get }
}

private struct GetMember: Endpoint {
    static let definition: Definition<GetMember> = Definition(method: .get, path: "members/\(path: \.login)")
    typealias Response = Member
    struct PathComponents {
        var login: String
    }
    var pathComponents: PathComponents
}

@Suite struct MockClientDialectTests {
    @Test func stubsEveryDialect() async throws {
        let mock = MockClient()
        mock.stub(
            MembersAPI.self,
            expecting: [Member].self,
            where: { $0 == .list },
            .json(#"[{"id": 1, "login": "ada"}]"#)
        )
        mock.stub(MembersAPI.self, expecting: [Member].self, .value([]))
        mock.stub(Following.self, .json(#"[{"id": 2, "login": "grace"}]"#))
        mock.stub(GetMember.self, where: { $0.pathComponents.login == "linus" }, .json(#"{"id": 3, "login": "linus"}"#))

        #expect(try await mock.perform(MembersAPI.list, expecting: [Member].self) == [Member(id: 1, login: "ada")])
        #expect(try await mock.perform(MembersAPI.find(login: "x"), expecting: [Member].self) == [])

        let repository = Repository(client: mock, server: Server([.production: URL(fileURLWithPath: "/")]))
        #expect(try await repository.perform(Following()) == [Member(id: 2, login: "grace")])

        let member = try await Server.withDefault(Server([.production: URL(fileURLWithPath: "/")])) {
            try await mock.perform(GetMember(pathComponents: .init(login: "linus")))
        }
        #expect(member.id == 3)
        try mock.verify()
    }
}
