// The snippet of the "Migrating" article, verbatim, run under an upload.
import Foundation
import Sluice
import SluiceTesting
import Testing

/// The article's transport: reports the whole body as sent, then hands the request on.
private struct CountingTransport: RequestPerformer {
    let base: any RequestPerformer

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let total = Int64(request.httpBody?.count ?? 0)
        RequestContext.current?.uploadProgress?(total, total)
        return try await base.perform(request)
    }
}

@Suite struct MigratingSnippetsTests {
    private struct Post: Request {
        typealias ResponseObject = Data

        func build() throws -> URLRequest {
            var request = URLRequest(url: URL(filePath: "/files"))
            request.httpMethod = "POST"
            request.httpBody = Data(count: 12)
            return request
        }
    }

    @Test func theArticlesTransportReportsThroughTheContext() async throws {
        let client = APIClient(requestPerformer: CountingTransport(base: StubPerformer.json("{}")))
        let upload = client.upload(Post())
        var reports: [TransferProgress] = []
        for await progress in upload.progress {
            reports.append(progress)
        }
        #expect(try await upload.finished() == Data("{}".utf8))
        #expect(reports.map(\.bytesTransferred) == [12])
        #expect(reports.map(\.expectedBytes) == [12])
    }
}
