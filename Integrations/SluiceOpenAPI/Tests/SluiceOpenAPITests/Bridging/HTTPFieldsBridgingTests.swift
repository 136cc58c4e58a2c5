import HTTPTypes
import SluiceCore
import SluiceOpenAPI
import Testing

/// Header fields cross between swift-http-types and Sluice whole: every field, repeated names and order kept.
@Suite struct HTTPFieldsBridgingTests {
    @Test func keepsRepeatedFieldsAndTheirOrderBothWays() throws {
        let fields: HTTPFields = [
            .setCookie: "a=1",
            .contentType: "text/plain",
            .setCookie: "b=2",
            HTTPField.Name("X-Trace")!: "7",
        ]
        let headers = HTTPHeaders(fields)
        #expect(
            headers.fields.map(\.description) == [
                "Set-Cookie: a=1", "Content-Type: text/plain", "Set-Cookie: b=2", "X-Trace: 7",
            ]
        )
        #expect(headers.values(for: .setCookie) == ["a=1", "b=2"])
        let back = try HTTPFields(headers)
        #expect(back == fields)
        #expect(back.map(\.name.rawName) == ["Set-Cookie", "Content-Type", "Set-Cookie", "X-Trace"])
    }

    @Test func refusesWhatAClientRefusesWithTheSameError() throws {
        let bad = HTTPHeaders([.init("Accept", "*/*"), .init("X Trace", "1")])
        let error = #expect(throws: SluiceError.self) { try HTTPFields(bad) }
        #expect(error?.code == .build)
        #expect(
            error?.invalidField?.description
                == #"HTTPHeaders.headers["X Trace"]: the name holds U+0020, which a header name cannot"#
        )
        let direct = #expect(throws: SluiceError.self) { try bad.validate(as: "HTTPHeaders") }
        #expect(direct?.invalidField == error?.invalidField)
        // A next-line character passes swift-http-types' checks (its bytes are obs-text) and not Sluice's.
        let nextLine = HTTPHeaders([.init("X-Note", "a\u{85}b")])
        let refused = #expect(throws: SluiceError.self) { try HTTPFields(nextLine) }
        #expect(
            refused?.invalidField?.description
                == "HTTPHeaders.headers.X-Note: the value contains the control character U+0085, which would break the header"
        )
    }
}
