// The snippet of `Upload`'s documentation, verbatim, run against a loopback server that counts what it received.
import Foundation
import Sluice
import SluiceTesting
import Testing

/// The snippet's response: how many bytes the server received.
private struct Attachment: Decodable, Sendable {
    let received: Int
}

/// The snippet's request: a file posted to the loopback server of the test running it.
private struct PutAttachment: Request {
    typealias ResponseObject = Attachment
    @TaskLocal static var server = URL(fileURLWithPath: "/")

    let id: Int
    let file: URL

    func build() throws -> URLRequest {
        var request = URLRequest(url: PutAttachment.server.appendingPathComponent("files"))
        request.httpMethod = "POST"
        request.httpBody = try Data(contentsOf: file)
        return request
    }
}

@Suite struct UploadSnippetsTests {
    @Test func theDocumentedSnippetRuns() async throws {
        let server = try LoopbackServer()
        server.route("POST", "/files") { request in
            .json(#"{"received": \#(request.body.count)}"#, status: 201)
        }
        let client = APIClient()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-upload-\(UUID().uuidString)")
        try Data(repeating: 2, count: 100_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let printed = try await PutAttachment.$server.withValue(server.baseURL) {
            try await SnippetOutput.collect {
                let upload = client.upload(PutAttachment(id: 7, file: file))
                for await progress in upload.progress {
                    print(progress.bytesTransferred, progress.expectedBytes ?? -1)
                }
                let attachment = try await upload.finished()
                #expect(attachment.received == 100_000)
            }
        }
        #expect(printed.last == "100000 100000")
    }
}
