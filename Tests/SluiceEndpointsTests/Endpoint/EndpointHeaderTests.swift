import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

/// A multipart upload whose definition may set its own `Content-Type`.
private struct TypedUpload: Endpoint {
    static let definition: Definition<TypedUpload> = Definition(
        method: .post,
        path: "upload",
        headers: ["content-type": .field(path: \.contentType)]
    )
    typealias Response = Void
    struct HeaderValues {
        var contentType: String?
    }
    var headerValues: HeaderValues
    var body = MultipartForm([.field("a", "1")])
    var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder(boundary: "BOUNDARY") }
}

/// A JSON body whose definition may set its own `Content-Type`.
private struct TypedNote: Endpoint {
    static let definition: Definition<TypedNote> = Definition(
        method: .post,
        path: "notes",
        headers: [.contentType: .field(path: \.contentType)]
    )
    typealias Response = Void
    typealias Body = [String: Int]
    struct HeaderValues {
        var contentType: String?
    }
    var headerValues: HeaderValues
    var body = ["a": 1]
}

/// A text body, in memory or streamed, whose definition may set its own `Content-Length`.
private struct SizedText: Endpoint {
    static let definition: Definition<SizedText> = Definition(
        method: .put,
        path: "text",
        headers: [.contentLength: .field(path: \.contentLength)]
    )
    typealias Response = Void
    typealias Body = String
    struct HeaderValues {
        var contentLength: String?
    }
    var headerValues: HeaderValues
    var body = "hello"
    var bodyEncoder: TextBodyEncoder
}

/// Writes a `String` body as UTF-8: in memory, or as a stream of known or unknown length.
struct TextBodyEncoder: RequestBody.Encoder {
    enum Kind: Sendable {
        case data
        case stream
        case streamOfUnknownLength
        case asyncSequence
    }

    var kind: Kind

    func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
        let data = Data((value as? String ?? "").utf8)
        switch kind {
        case .data: return .data(data, contentType: "text/plain")
        case .stream: return .stream(length: data.count, contentType: "text/plain") { InputStream(data: data) }
        case .streamOfUnknownLength: return .stream(length: nil, contentType: "text/plain") { InputStream(data: data) }
        case .asyncSequence:
            return .bytes(length: data.count, contentType: "text/plain") {
                AsyncStream { continuation in
                    continuation.yield(data)
                    continuation.finish()
                }
            }
        }
    }
}

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
    @Test(
        arguments: [
            (nil, "multipart/form-data; boundary=BOUNDARY"),
            ("multipart/form-data", "multipart/form-data; boundary=BOUNDARY"),
            ("multipart/form-data; ", "multipart/form-data; boundary=BOUNDARY"),
            ("Multipart/Mixed; charset=utf-8", "Multipart/Mixed; charset=utf-8; boundary=BOUNDARY"),
            (#"multipart/related; type="a;boundary=b""#, #"multipart/related; type="a;boundary=b"; boundary=BOUNDARY"#),
            (#"multipart/form-data; Boundary="own""#, #"multipart/form-data; Boundary="own""#),
            ("application/octet-stream", "application/octet-stream"),
        ] as [(String?, String)]
    )
    func givesAMultipartContentTypeOfTheDefinitionTheEncodersBoundary(_ header: String?, _ sent: String) throws {
        let request = try TypedUpload(headerValues: .init(contentType: header)).build(on: exampleAPI)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == sent)
        #expect(request.httpBody?.prefix(12) == Data("--BOUNDARY\r\n".utf8))
    }

    @Test(
        arguments: [
            (nil, "application/json"),
            ("application/vnd.notes+json", "application/vnd.notes+json"),
            ("multipart/form-data", "multipart/form-data"),
        ] as [(String?, String)]
    )
    func letsTheDefinitionsContentTypeWin(_ header: String?, _ sent: String) throws {
        let request = try TypedNote(headerValues: .init(contentType: header)).build(on: exampleAPI)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == sent)
    }

    @Test(
        arguments: [
            (nil, TextBodyEncoder.Kind.stream, "5"),
            ("5", .stream, "5"),
            (nil, .streamOfUnknownLength, nil),
            ("5", .streamOfUnknownLength, "5"),
            (nil, .asyncSequence, "5"),
            ("5", .asyncSequence, "5"),
            (nil, .data, nil),
            ("5", .data, "5"),
        ] as [(String?, TextBodyEncoder.Kind, String?)]
    )
    func sendsTheBodysLengthOrTheDefinitionsWhenTheyAgree(
        _ header: String?,
        _ kind: TextBodyEncoder.Kind,
        _ sent: String?
    ) throws {
        let endpoint = SizedText(headerValues: .init(contentLength: header), bodyEncoder: TextBodyEncoder(kind: kind))
        let request = try endpoint.build(on: exampleAPI)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == sent)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/plain")
        #expect((request.httpBodyStream is AsyncBodyStream) == (kind == .asyncSequence))
    }

    @Test(arguments: [
        ("7", TextBodyEncoder.Kind.stream),
        ("7", .data),
        ("five", .stream),
        ("7", .asyncSequence),
        ("", .data),
    ])
    func rejectsAContentLengthOfTheDefinitionThatIsNotTheBodys(_ header: String, _ kind: TextBodyEncoder.Kind) throws {
        let endpoint = SizedText(headerValues: .init(contentLength: header), bodyEncoder: TextBodyEncoder(kind: kind))
        let error = try requireInvalidField { try endpoint.build(on: exampleAPI) }
        #expect(
            error.description
                == "SizedText.headers.Content-Length: the definition sets \"\(header)\", but the body is 5 bytes long"
        )
    }

    @Test func rejectsAHeaderTheDefinitionSetsTwice() throws {
        let error = try requireInvalidField {
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
        let error = try requireInvalidField { try BadName().build(on: exampleAPI) }
        #expect(error.field == #"headers["X Bad"]"#)
        #expect(error.description == #"BadName.headers["X Bad"]: the name holds U+0020, which a header name cannot"#)
    }
}
