import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

/// How the performer frames a request body: exactly one of `Content-Length` and `Transfer-Encoding`, which the
/// loopback server checks as strictly as nginx does.
@Suite struct NetworkRequestPerformerFramingTests {
    @Test func streamWithContentLengthIsSentWithOneFraming() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("PUT", "/upload") { request in .text(String(request.body.count)) }
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: payload)
        request.setValue(String(payload.count), forHTTPHeaderField: "Content-Length")

        let response = try await NetworkRequestPerformer().perform(request)

        #expect(response.status == .ok)
        let received = try #require(server.receivedRequests.first)
        #expect(received.body == payload)
        let framings = ["Content-Length", "Transfer-Encoding"].filter { received.header($0) != nil }
        #expect(framings.count == 1, "sent with \(framings)")
    }

    @Test func dataBodyKeepsItsContentLength() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("POST", "/upload") { request in .text(String(request.body.count)) }
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        request.httpBody = Data("hello".utf8)

        let response = try await NetworkRequestPerformer().perform(request)

        #expect(response.status == .ok)
        #expect(server.receivedRequests.first?.header("Content-Length") == "5")
        #expect(server.receivedRequests.first?.header("Transfer-Encoding") == nil)
    }
}
