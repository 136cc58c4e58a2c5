// swift-format-ignore-file
// The code samples of the declarative-endpoint seed, unchanged (so the formatter is kept off this file), with the
// user-side types they leave out.
import Foundation
import SluiceEndpoints
import Testing
import ClientFixtures

// Sample 1: a DELETE with typed path interpolation.
struct DeleteEndpoint: Endpoint {
    static let definition: Definition<DeleteEndpoint> = Definition(
        method: .delete,
        path: "calendar/v3/calendars/\(path: \.calendarId)/events\(path: \.eventId)"
    )

    typealias Response = Void

    struct PathComponents {
        let calendarId: String
        let eventId: String
    }

    let pathComponents: PathComponents
}

// Sample 3: headers from key paths, fixed values and a standard name. `UserEndpoint`, its `Response` and its
// `HeaderValues` are the user-side types the sample leaves out.
struct UserEndpoint: Endpoint {
    typealias Response = SampleUser

    struct HeaderValues {
        let type: String
    }

    let headerValues: HeaderValues

    static let definition: Definition<UserEndpoint> = Definition(
        method: .get,
        path: "/request",
        headers: [
            "X-TYPE": HeaderField.field(path: \UserEndpoint.HeaderValues.type),
            "X-VALUE": .fieldValue(value: "value"),
            .keepAlive: .fieldValue(value: "timeout=5, max=1000")
        ]
    )
}

struct SampleUser: Decodable, Sendable {
    let name: String
}

// Sample 2 declares `Parameter<T>` itself, which is the library's own type: each of its cases is used here.
struct ParameterSample: Endpoint {
    typealias Response = Void

    struct Parameters {
        let name: String
        let page: Int
    }

    let parameters: Parameters

    static let definition: Definition<ParameterSample> = Definition(
        method: .post,
        path: "/sample",
        parameters: [
            .form("name", path: \.name),
            .formValue("kind", value: "person"),
            .query("page", path: \.page),
            .queryValue("per_page", value: 20),
        ]
    )
}

@Suite struct SeedSamplesTests {
    let server = Server([.production: URL(staticString: "https://www.googleapis.com")])

    @Test func deleteEndpointBuildsItsPath() throws {
        let endpoint = DeleteEndpoint(pathComponents: .init(calendarId: "primary", eventId: "evt 1"))
        #expect(DeleteEndpoint.definition.path.template == "calendar/v3/calendars/{calendarId}/events{eventId}")
        let request = try endpoint.build(on: server)
        #expect(request.httpMethod == "DELETE")
        #expect(request.url?.absoluteString == "https://www.googleapis.com/calendar/v3/calendars/primary/eventsevt%201")
    }

    @Test func userEndpointSendsItsHeaders() throws {
        let request = try UserEndpoint(headerValues: .init(type: "admin")).build(on: server)
        #expect(request.value(forHTTPHeaderField: "X-TYPE") == "admin")
        #expect(request.value(forHTTPHeaderField: "X-VALUE") == "value")
        #expect(request.value(forHTTPHeaderField: "Keep-Alive") == "timeout=5, max=1000")
        #expect(request.url?.absoluteString == "https://www.googleapis.com/request")
    }

    @Test func parameterSampleUsesEveryCase() throws {
        let request = try ParameterSample(parameters: .init(name: "Ada L", page: 2)).build(on: server)
        #expect(request.url?.absoluteString == "https://www.googleapis.com/sample?page=2&per_page=20")
        #expect(request.httpBody.map { String(decoding: $0, as: UTF8.self) } == "name=Ada+L&kind=person")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
    }
}
