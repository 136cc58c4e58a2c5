import Foundation
import SluiceCore

/// One recorded exchange, as a fixture file holds it.
///
/// The file holds the request's method, URL, headers and body and the response's status, headers and body. A body is
/// kept under `body` as text when its bytes are UTF-8 that reads back to the same bytes, and under `bodyBase64` in
/// Base64 otherwise; the key says which, so either way the file holds the exact bytes. A streamed response also keeps
/// `chunks`, the sizes of the chunks its body arrived in, so that a replay hands the body out in the same chunks.
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
    /// The sizes of the chunks a streamed body arrived in; `nil` for a buffered response.
    var chunks: [Int]?

    /// A body cut into chunks of the recorded sizes; the last takes what the sizes leave, as a body whose secrets were
    /// hidden may have changed length.
    static func split(_ body: Data, into sizes: [Int]) -> [Data] {
        var parts: [Data] = []
        var start = body.startIndex
        for size in sizes.dropLast() where start < body.endIndex {
            let end = body.index(start, offsetBy: min(max(size, 0), body.endIndex - start))
            parts.append(body[start..<end])
            start = end
        }
        if start < body.endIndex {
            parts.append(body[start...])
        }
        return parts
    }
}
