import Foundation
import Sluice
import Testing

@Suite struct MultipartFormEncoderTests {
    @Test(arguments: [
        ("text/plain\r\nX-Evil: 1", "U+000D"),
        ("text/plain\nX-Evil: 1", "U+000A"),
        ("text/plain\0", "U+0000"),
        ("text/plain\u{7F}", "U+007F"),
    ])
    func rejectsAContentTypeThatWouldInjectAHeader(_ contentType: String, _ code: String) throws {
        let form = MultipartForm([
            .field("caption", "x"),
            .file("photo", filename: "a.txt", contentType: contentType, data: Data("hi".utf8)),
        ])
        let error = try #require(throws: EndpointBuildError.self) { try Upload(body: form).build(on: exampleAPI) }
        #expect(
            error.description
                == "Upload.body.parts[1].contentType: the content type of part \"photo\" contains the control "
                + "character \(code), which would break the header"
        )
    }

    @Test func rejectsAnInjectingContentTypeOfAFileStreamedFromDisk() throws {
        let form = MultipartForm([
            .file("doc", fileURL: URL(fileURLWithPath: "/nonexistent/doc.txt"), contentType: "text/plain\r\n")
        ])
        let error = try #require(throws: EndpointBuildError.self) { try Upload(body: form).build(on: exampleAPI) }
        #expect(
            error.description
                == "Upload.body.parts[0].contentType: the content type of part \"doc\" contains the control "
                + "character U+000D, which would break the header"
        )
        let direct = try #require(throws: EndpointBuildError.self) {
            try MultipartFormEncoder(boundary: "B").encodeBody(form)
        }
        #expect(
            direct.description
                == "MultipartForm.parts[0].contentType: the content type of part \"doc\" contains the control "
                + "character U+000D, which would break the header"
        )
    }
}
