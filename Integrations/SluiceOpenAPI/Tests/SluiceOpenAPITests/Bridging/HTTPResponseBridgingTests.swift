import Foundation
import HTTPTypes
import SluiceCore
import SluiceOpenAPI
import Testing

/// Responses cross between swift-http-types and Sluice with their status, reason phrase and every field.
@Suite struct HTTPResponseBridgingTests {
    @Test func keepsTheStatusAndEveryFieldBothWays() throws {
        let sluice = SluiceCore.HTTPResponse(
            status: HTTPStatus(code: 429, reasonPhrase: "Slow Down"),
            headers: HTTPHeaders([.init("Set-Cookie", "a=1"), .init("Retry-After", "3"), .init("Set-Cookie", "b=2")]),
            body: Data("{}".utf8)
        )
        let head = try HTTPTypes.HTTPResponse(sluice)
        #expect(head.status.code == 429)
        #expect(head.status.reasonPhrase == "Slow Down")
        #expect(head.headerFields.map { $0.description } == ["Set-Cookie: a=1", "Retry-After: 3", "Set-Cookie: b=2"])
        let back = SluiceCore.HTTPResponse(head, body: sluice.body)
        #expect(back == sluice)
        let streamed = try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse.Streamed(sluice))
        #expect(streamed == head)
    }

    @Test func refusesAStatusSwiftHTTPTypesCannotHold() throws {
        let error = #expect(throws: SluiceError.self) {
            try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse(status: HTTPStatus(code: 1_000)))
        }
        #expect(error?.code == .build)
        #expect(
            error?.invalidField?.description
                == "HTTPResponse.status: 1000 is not a status code of three digits from 100 to 999"
        )
    }
}
