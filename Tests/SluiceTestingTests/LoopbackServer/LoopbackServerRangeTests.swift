import ClientFixtures
import Foundation
import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Range requests: 206 with the right bytes and Content-Range, 416, If-Range, and a server that misstates its range.
@Suite("LoopbackServer: range requests")
struct LoopbackServerRangeTests {
    /// The last second of 2025, as `Last-Modified` sends it.
    static let modified = Date(timeIntervalSince1970: 1_767_225_599)

    /// Sends a GET with the given extra header lines over a new connection and reads the response.
    func get(_ path: String, from server: LoopbackServer, _ headerLines: String...) throws -> RawResponse {
        let client = try RawClient(port: server.port)
        let extra = headerLines.map { $0 + "\r\n" }.joined()
        try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n")
        return try client.readResponse()
    }

    @Test(arguments: [
        ("bytes=4-", "bytes 4-9/10", "456789"),
        ("bytes=2-5", "bytes 2-5/10", "2345"),
        ("bytes=7-100", "bytes 7-9/10", "789"),
        ("bytes=-3", "bytes 7-9/10", "789"),
        ("bytes=-30", "bytes 0-9/10", "0123456789"),
        ("bytes=9-9", "bytes 9-9/10", "9"),
        ("Bytes = 0-0", "bytes 0-0/10", "0"),
    ])
    func satisfiableRangeGets206WithOnlyThoseBytes(range: String, contentRange: String, body: String) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digits", response: .text("0123456789").servingRanges())

        let response = try get("/digits", from: server, "Range: \(range)")

        #expect(response.status == 206)
        #expect(response.header("Content-Range") == contentRange)
        #expect(response.header("Content-Length") == String(body.utf8.count))
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.bodyText == body)
        #expect(server.receivedRequests.first?.header("Range") == range)
    }

    @Test(arguments: ["bytes=10-", "bytes=10-20", "bytes=-0", "bytes=99999999999999999999-"])
    func rangePastTheEndGets416(range: String) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digits", response: .text("0123456789").servingRanges())

        let response = try get("/digits", from: server, "Range: \(range)")
        try expectServerStillAnswers(server, path: "/digits")

        #expect(response.status == 416)
        #expect(response.header("Content-Range") == "bytes */10")
        #expect(response.bodyText.contains(range))
    }

    @Test(arguments: ["bytes=5-2", "bytes=a-b", "items=0-1", "bytes=0-1, 4-5", "bytes=-", "bytes"])
    func malformedOrMultipleRangesGetTheWholeBody(range: String) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digits", response: .text("0123456789").servingRanges())

        let response = try get("/digits", from: server, "Range: \(range)")

        #expect(response.status == 200)
        #expect(response.header("Content-Range") == nil)
        #expect(response.bodyText == "0123456789")
    }

    @Test func responseThatDoesNotServeRangesIgnoresThem() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digits", response: .text("0123456789"))

        let response = try get("/digits", from: server, "Range: bytes=4-")

        #expect(response.status == 200)
        #expect(response.header("Accept-Ranges") == nil)
        #expect(response.bodyText == "0123456789")
    }

    @Test func validatorsAreSentWithEveryAnswer() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: .text("0123456789").servingRanges(etag: "v1", lastModified: Self.modified))
        let client = try RawClient(port: server.port)

        let whole = try get("/file", from: server)
        try client.send("HEAD /file HTTP/1.1\r\nHost: test\r\nRange: bytes=0-1\r\n\r\n")
        let head = try client.readResponse(toHeadRequest: true)

        #expect(whole.status == 200)
        #expect(whole.header("Accept-Ranges") == "bytes")
        #expect(whole.header("ETag") == #""v1""#)
        #expect(whole.header("Last-Modified") == "Wed, 31 Dec 2025 23:59:59 GMT")
        #expect(head.status == 200, "a range applies to GET only")
        #expect(head.header("Content-Length") == "10")
        #expect(head.header("ETag") == #""v1""#)
    }

    @Test(arguments: [
        (#""v1""#, 206),
        (#""v2""#, 200),
        (#"W/"v1""#, 200),
        ("Wed, 31 Dec 2025 23:59:59 GMT", 206),
        ("Wed, 31 Dec 2025 23:59:58 GMT", 200),
        ("yesterday", 200),
    ])
    func ifRangeHonoursTheRangeOnlyWhenItMatches(ifRange: String, status: Int) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: .text("0123456789").servingRanges(etag: #""v1""#, lastModified: Self.modified))

        let response = try get("/file", from: server, "Range: bytes=5-", "If-Range: \(ifRange)")

        #expect(response.status == status)
        #expect(response.bodyText == (status == 206 ? "56789" : "0123456789"))
        #expect(server.receivedRequests.first?.header("If-Range") == ifRange)
    }

    @Test func weakEntityTagNeverMatchesIfRange() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: .text("0123456789").servingRanges(etag: #"W/"v1""#))

        let response = try get("/file", from: server, "Range: bytes=5-", #"If-Range: W/"v1""#)

        #expect(response.status == 200)
        #expect(response.header("ETag") == #"W/"v1""#)
    }

    @Test func rangeOfAGeneratedBodyBeyondFourGiB() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let total: Int64 = 5 << 30
        server.route("/huge", response: .generated(byteCount: total).servingRanges())
        let first = total - 1_000

        let response = try get("/huge", from: server, "Range: bytes=\(first)-\(first + 99)")
        let tail = try get("/huge", from: server, "Range: bytes=-10")

        #expect(response.status == 206)
        #expect(response.header("Content-Range") == "bytes \(first)-\(first + 99)/\(total)")
        #expect(Data(response.body) == LoopbackServer.Response.generatedBytes(in: first..<(first + 100)))
        #expect(Data(tail.body) == LoopbackServer.Response.generatedBytes(in: (total - 10)..<total))
    }

    @Test func rangeOfAStreamedBodySpansItsChunks() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let chunks = ["012", "345", "6789"].map { LoopbackServer.Response.Chunk(text: $0) }
        server.route("/stream", response: .streamed(chunks).servingRanges())

        let response = try get("/stream", from: server, "Range: bytes=2-7")

        #expect(response.status == 206)
        #expect(response.header("Content-Length") == "6", "a range fixes the length, so it is announced")
        #expect(response.bodyText == "234567")
    }

    @Test func urlSessionResumesADownloadWithARange() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: .generated(byteCount: 200_000).servingRanges(etag: "abc"))
        var request = URLRequest(url: server.url("/file"))
        request.setValue("bytes=150000-", forHTTPHeaderField: "Range")
        request.setValue(#""abc""#, forHTTPHeaderField: "If-Range")

        let (data, response) = try await makeSession().data(for: request)

        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 206)
        #expect(http.value(forHTTPHeaderField: "Content-Range") == "bytes 150000-199999/200000")
        #expect(data == LoopbackServer.Response.generatedBytes(in: 150_000..<200_000))
    }

    @Test func closeMidBodyCutsARangeResponse() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/digits", response: .text("0123456789").servingRanges().injecting(.closeMidBody(afterBytes: 2)))
        let client = try RawClient(port: server.port)

        try client.send("GET /digits HTTP/1.1\r\nHost: test\r\nRange: bytes=4-\r\n\r\n")
        let raw = String(decoding: client.readToEnd(), as: UTF8.self)

        #expect(raw.hasPrefix("HTTP/1.1 206 "))
        #expect(raw.contains("Content-Length: 6\r\n"))
        #expect(raw.hasSuffix("\r\n\r\n45"))
    }

    @Test func misreportedContentRangeIsSentVerbatim() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let response = LoopbackServer.Response.text("0123456789").servingRanges()
        server.route("/wrong", response: response.injecting(.misreportedContentRange("bytes 0-3/10")))

        let ranged = try get("/wrong", from: server, "Range: bytes=6-")
        let unasked = try get("/wrong", from: server)

        #expect(ranged.status == 206)
        #expect(ranged.header("Content-Range") == "bytes 0-3/10")
        #expect(ranged.bodyText == "6789")
        #expect(unasked.status == 206, "a 206 nobody asked for")
        #expect(unasked.bodyText == "0123456789")
    }

    @Test func misreportedContentRangeCannotBreakTheHead() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/bad", response: .text("x").injecting(.misreportedContentRange("bytes 0-0/1\r\nX: y")))

        let response = try get("/bad", from: server)

        #expect(response.status == 500)
        #expect(response.bodyText.contains("Content-Range"))
    }
}
