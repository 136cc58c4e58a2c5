import Foundation
import SluiceCore
import Testing

/// The spellings kept from before each concept had one name still compile and still do what their replacements do.
///
/// The only place the tests use them, so the compiler's deprecation warnings stand here alone.
@Suite struct DeprecatedTests {
    @Test func theStaticUploadProgressIsTheCurrentContexts() async throws {
        let reports = Locked<[Int64]>([])
        struct Reporting: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                RequestContext.uploadProgress?(5, 10)
                return HTTPResponse(status: .ok, body: Data("{}".utf8))
            }
        }
        struct Post: Request {
            typealias ResponseObject = Data
            func build() throws -> URLRequest { URLRequest(url: URL(filePath: "/upload")) }
        }
        let upload = APIClient(requestPerformer: Reporting()).upload(Post())
        for await progress in upload.progress {
            reports.withLock { $0.append(progress.bytesTransferred) }
        }
        _ = try await upload.finished()
        #expect(reports.withLock { $0 } == [5])
        #expect(RequestContext.uploadProgress == nil)
    }
}
