import ClientFixtures
import Foundation
import Testing

@testable import SluiceEndpoints

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
        let error = try requireInvalidField { try Upload(body: form).build(on: exampleAPI) }
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
        let error = try requireInvalidField { try Upload(body: form).build(on: exampleAPI) }
        #expect(
            error.description
                == "Upload.body.parts[0].contentType: the content type of part \"doc\" contains the control "
                + "character U+000D, which would break the header"
        )
        let direct = try requireInvalidField {
            try MultipartForm.Encoder(boundary: "B").encodeBody(form)
        }
        #expect(
            direct.description
                == "MultipartForm.parts[0].contentType: the content type of part \"doc\" contains the control "
                + "character U+000D, which would break the header"
        )
    }

    /// Content that holds the delimiter at the start of a line is refused.
    ///
    /// The part would end there, and what follows would read as parts of the sender's choosing: with a boundary the
    /// caller fixed, content from elsewhere could add form fields. After a bare CR or LF too, as lenient readers take
    /// those for line ends.
    @Test(arguments: [
        "--BOUNDARY\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\ntrue",
        "x\r\n--BOUNDARY--\r\n",
        "x\r\n--BOUNDARYy",
        "x\n--BOUNDARY",
        "x\r--BOUNDARY",
    ])
    func refusesContentThatHoldsTheDelimiterAtTheStartOfALine(_ content: String) throws {
        let form = MultipartForm([
            .field("caption", "x"),
            .file("photo", filename: "a.txt", contentType: "text/plain", data: Data(content.utf8)),
        ])
        let error = try requireInvalidField { try Upload(body: form).build(on: exampleAPI) }
        #expect(
            error.description
                == "Upload.body.parts[1].content: the content of part \"photo\" holds the delimiter \"--BOUNDARY\" "
                + "at the start of a line, which would end the part there; choose another boundary"
        )
    }

    @Test func acceptsContentThatHoldsTheBoundaryElsewhere() throws {
        let form = MultipartForm([.field("caption", "BOUNDARY x--BOUNDARY\r\n-BOUNDARY\n-BOUNDARY")])
        let request = try Upload(body: form).build(on: exampleAPI)
        #expect(request.httpBody?.count == 119)
    }

    @Test func referencesInMemoryPartsUntilTheBodyIsJoined() throws {
        let photo = sampleBytes(1 << 20, seed: 31)
        let form = MultipartForm([
            .field("caption", "At the beach"),
            .file("photo", filename: "beach.jpg", contentType: "image/jpeg", data: photo),
        ])
        let segments = try MultipartForm.Encoder(boundary: "B").segments(of: form)
        let address = photo.withUnsafeBytes { $0.baseAddress }
        let referenced = segments.contains { segment in
            guard case .bytes(let bytes) = segment else { return false }
            return bytes.withUnsafeBytes { $0.baseAddress } == address && bytes.count == photo.count
        }
        #expect(referenced)
        let request = try Upload(body: form).build(on: exampleAPI)
        let body = try #require(request.httpBody)
        let header = Data(
            "--BOUNDARY\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nAt the beach\r\n--BOUNDARY\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"beach.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                .utf8
        )
        #expect(body.count == header.count + photo.count + "\r\n--BOUNDARY--\r\n".utf8.count)
        #expect(body.prefix(header.count) == header)
        #expect(body.dropFirst(header.count).prefix(photo.count) == photo)
        #expect(body.suffix(16) == Data("\r\n--BOUNDARY--\r\n".utf8))
    }
}
