import Foundation
import Sluice
import Testing

private struct BadName: Endpoint {
    static let definition: Definition<BadName> = Definition(
        method: .get,
        path: "bad",
        headers: ["X Bad": .fieldValue(value: "1")]
    )
    typealias Response = Void
}

@Suite struct EndpointHeaderTests {
    @Test func namesAHeaderWhoseNameIsInvalid() throws {
        let error = try #require(throws: EndpointBuildError.self) { try BadName().build(on: exampleAPI) }
        #expect(error.field == #"headers["X Bad"]"#)
        #expect(error.description == #"BadName.headers["X Bad"]: the name holds U+0020, which a header name cannot"#)
    }
}
