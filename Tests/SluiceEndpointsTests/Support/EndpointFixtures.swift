import ClientFixtures
import Foundation
import SluiceEndpoints

/// The server and endpoints shared by the endpoint tests.
let exampleAPI = Server([
    .production: URL(staticString: "https://api.example.com/v2"),
    .staging: URL(staticString: "http://staging.local:8080"),
])

/// A multipart upload with a fixed boundary, so that its bytes can be compared.
struct Upload: Endpoint {
    static let definition: Definition<Upload> = Definition(method: .post, path: "upload")
    typealias Response = Void
    var body: MultipartForm
    var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder(boundary: "BOUNDARY") }
}
