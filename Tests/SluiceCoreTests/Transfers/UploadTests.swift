import ClientFixtures
import Foundation
import SluiceCore
import SluiceEndpoints
import SluiceTesting
import Testing

@Suite struct UploadTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
        server.route("POST", "/files") { request in
            .json(#"{"received": \#(request.body.count)}"#, status: 201)
        }
    }

    struct Receipt: Decodable, Sendable, Equatable {
        let received: Int
    }

    struct PostData: Request {
        typealias ResponseObject = Receipt
        let url: URL
        let body: Data

        func build() throws -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = body
            return request
        }
    }

    struct PostFile: Endpoint {
        static let definition: Definition<PostFile> = Definition(method: .post, path: "files")
        typealias Response = Receipt
        var body: MultipartForm
        var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder(boundary: "upload-test-boundary") }
    }

    /// The progress an upload reports, read to its end, and its outcome.
    func run<Value>(_ upload: SluiceCore.Upload<Value>) async throws -> ([TransferProgress], Value) {
        var reports: [TransferProgress] = []
        for await progress in upload.progress {
            reports.append(progress)
        }
        return (reports, try await upload.finished())
    }

    @Test(arguments: TransportKind.socketCases)
    func reportsTheBytesOfADataBodyAsTheyAreSent(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let body = Data(repeating: 7, count: 4 << 20)
        let (reports, receipt) = try await run(
            kind.makeClient().upload(PostData(url: origin.url("/files"), body: body))
        )
        #expect(receipt == Receipt(received: body.count))
        let last = try #require(reports.last)
        #expect(last == TransferProgress(bytesTransferred: Int64(body.count), expectedBytes: Int64(body.count)))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesTransferred <= $1.bytesTransferred })
    }

    @Test(arguments: TransportKind.allCases)
    func aClientThatMakesNoContextStillHearsItsTransportReport(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        /// A client of its own that hands the built request straight to a performer, with no request context.
        struct Direct: Client {
            let performer: any RequestPerformer

            func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
                let response: HTTPResponse
                do {
                    response = try await performer.perform(request.build())
                } catch {
                    throw SluiceError(.transport, underlyingError: error)
                }
                return try request.responseObject(from: response.body)
            }
        }
        let body = Data(repeating: 3, count: 256 << 10)
        let client = Direct(performer: kind.makePerformer())
        let (reports, receipt) = try await run(client.upload(PostData(url: origin.url("/files"), body: body)))
        #expect(receipt == Receipt(received: body.count))
        #expect(reports.last == TransferProgress(bytesTransferred: Int64(body.count), expectedBytes: Int64(body.count)))
    }

    @Test(arguments: TransportKind.socketCases)
    func reportsTheBytesOfAMultipartStreamFromDisk(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-upload-\(UUID().uuidString)")
        try Data(repeating: 1, count: 1 << 20).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = PostFile(
            body: MultipartForm([
                .file("doc", fileURL: file, filename: "doc.bin", contentType: "application/octet-stream")
            ])
        )
        let client = kind.makeClient()
        let (reports, receipt) = try await Server.withDefault(Server([.production: origin.baseURL])) {
            try await run(client.upload(upload))
        }
        let last = try #require(reports.last)
        #expect(last.bytesTransferred == Int64(receipt.received))
        #expect(last.expectedBytes == Int64(receipt.received))
        #expect(receipt.received > 1 << 20)
    }

    @Test func aTransportThatDoesNotReportLeavesTheProgressEmpty() async throws {
        let stub = StubPerformer.json(#"{"received": 3}"#)
        let (reports, receipt) = try await run(
            APIClient(requestPerformer: stub).upload(PostData(url: server.url("/files"), body: Data("abc".utf8)))
        )
        #expect(reports.isEmpty)
        #expect(receipt == Receipt(received: 3))
    }

    @Test func aTransportOfYourOwnReportsThroughTheContext() async throws {
        struct Reporting: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                let report = RequestContext.current?.uploadProgress
                let total = Int64(request.httpBody?.count ?? 0)
                report?(total / 2, total)
                report?(total, total)
                return HTTPResponse(status: .created, body: Data(#"{"received": \#(total)}"#.utf8))
            }
        }
        let (reports, _) = try await run(
            APIClient(requestPerformer: Reporting()).upload(PostData(url: server.url("/files"), body: Data(count: 10)))
        )
        #expect(reports.last == TransferProgress(bytesTransferred: 10, expectedBytes: 10))
    }

    @Test(arguments: TransportKind.socketCases)
    func cancellingAnUploadEndsItWithACancellation(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        let arrived = Signal("the request at the server")
        server.route("POST", "/slow") { _ in
            arrived.fire()
            // Longer than any run, however slow: the cancellation ends it, and the server's stop cuts the wait.
            return LoopbackServer.Response.json("{}").delayed(by: .seconds(3_600))
        }
        let upload = kind.makeClient().upload(PostData(url: origin.url("/slow"), body: Data(count: 10)))
        try await arrived.wait()
        upload.cancel()
        let error = await #expect(throws: SluiceError.self) { try await upload.finished() }
        #expect(error?.code == .cancelled)
    }
}
