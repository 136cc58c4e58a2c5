import Foundation
import SluiceEndpoints
import Testing

private struct GetEvent: Endpoint {
    static let definition: Definition<GetEvent> = Definition(
        server: Server([.production: URL(string: "https://api.example.com/v2/") ?? URL(fileURLWithPath: "/")]),
        method: .get,
        path: "calendars/\(path: \.calendarId)/events/\(path: \.eventId)"
    )
    typealias Response = Data
    struct PathComponents {
        var calendarId: String
        var eventId: Int
    }
    var pathComponents: PathComponents
}

private struct Ping: Endpoint {
    static let definition: Definition<Ping> = Definition(server: Server(), method: .get, path: "ping")
    typealias Response = Data
}

private struct Reports: APIDefinition {
    var baseURL: URL
    var id: Int
    var path: String { "/reports/\(id)" }
    var method: HTTPMethod { .get }
    var pathTemplate: String? { "/reports/{id}" }
}

private struct Accounts: APIDefinition {
    var baseURL: URL
    var path: String { "accounts" }
    var method: HTTPMethod { .get }
}

/// The template each dialect names for the instrumentation's `url.template`: the path with its values as `{name}`,
/// after the base URL's path, never a value of the request.
@Suite struct EndpointTemplateTests {
    @Test func anEndpointNamesItsPathTemplateAfterTheServersPath() throws {
        let endpoint = GetEvent(pathComponents: .init(calendarId: "work", eventId: 42))
        #expect(endpoint.urlTemplate == "/v2/calendars/{calendarId}/events/{eventId}")
        let built = try endpoint.build()
        #expect(built.url?.path == "/v2/calendars/work/events/42")
    }

    @Test func anEndpointWithoutABaseURLNamesNoTemplate() {
        #expect(Ping().urlTemplate == nil)
    }

    @Test func anAPIDefinitionNamesTheTemplateItDeclares() throws {
        let base = try #require(URL(string: "https://reports.example.com/api"))
        let request = APIDefinitionRequest(Reports(baseURL: base, id: 7), expecting: Data.self)
        #expect(request.urlTemplate == "/api/reports/{id}")
        #expect(try request.build().url?.path == "/api/reports/7")
        #expect(APIDefinitionRequest(Accounts(baseURL: base), expecting: Data.self).urlTemplate == nil)
    }
}
