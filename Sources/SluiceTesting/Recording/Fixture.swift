import Foundation
import Sluice

/// One recorded exchange, as a fixture file holds it.
///
/// The file holds the request's method, URL, headers and body and the response's status, headers and body. A body is
/// kept under `body` as text when its bytes are UTF-8 that reads back to the same bytes, and under `bodyBase64` in
/// Base64 otherwise; the key says which, so either way the file holds the exact bytes.
struct Fixture: Codable, Sendable {
    struct Message: Codable, Sendable {
        var headers: [String: String]
        var body: String?
        var bodyBase64: String?

        init(headers: [String: String], body: Data) {
            self.headers = headers
            if body.isEmpty {
                return
            }
            if let text = String(data: body, encoding: .utf8), Data(text.utf8) == body {
                self.body = text
            } else {
                self.bodyBase64 = body.base64EncodedString()
            }
        }

        var data: Data {
            if let body {
                return Data(body.utf8)
            }
            return bodyBase64.flatMap { Data(base64Encoded: $0) } ?? Data()
        }
    }

    var method: String
    var url: String
    var request: Message
    var status: Int
    var response: Message
}
