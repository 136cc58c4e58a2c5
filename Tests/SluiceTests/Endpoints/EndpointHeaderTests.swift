import Foundation
import Sluice
import Testing

private struct Twice: Endpoint {
    static let definition: Definition<Twice> = Definition(
        method: .get,
        path: "twice",
        headers: [
            "X-Trace": .fieldValue(value: "1"),
            .accept: .fieldValue(value: "*/*"),
            "x-trace": .field(path: \.id),
        ]
    )
    typealias Response = Void
    struct HeaderValues {
        var id: String?
    }
    var headerValues: HeaderValues
}

private struct BadName: Endpoint {
    static let definition: Definition<BadName> = Definition(
        method: .get,
        path: "bad",
        headers: ["X Bad": .fieldValue(value: "1")]
    )
    typealias Response = Void
}

@Suite struct EndpointHeaderTests {
    @Test func rejectsAHeaderTheDefinitionSetsTwice() throws {
        let error = try #require(throws: EndpointBuildError.self) {
            try Twice(headerValues: .init(id: "2")).build(on: exampleAPI)
        }
        #expect(
            error.description
                == "Twice.headers.X-Trace: the definition sets the header twice, as \"X-Trace\" and \"x-trace\"; "
                + "header names are compared ignoring case"
        )
        #expect(Array(Twice.definition.headers.map(\.header.name)) == ["X-Trace", "Accept", "x-trace"])
    }

    @Test func takesTheHeadersOfADictionaryBuiltInCode() throws {
        var fields: [Header: HeaderField<Twice.HeaderValues>] = [.accept: .fieldValue(value: "*/*")]
        fields["X-Trace"] = .field(path: \.id)
        let headers = Definition<Twice>.Headers(fields)
        #expect(Set(headers.map(\.header)) == [.accept, "x-trace"])
    }

    @Test func namesAHeaderWhoseNameIsInvalid() throws {
        let error = try #require(throws: EndpointBuildError.self) { try BadName().build(on: exampleAPI) }
        #expect(error.field == #"headers["X Bad"]"#)
        #expect(error.description == #"BadName.headers["X Bad"]: the name holds U+0020, which a header name cannot"#)
    }
}
