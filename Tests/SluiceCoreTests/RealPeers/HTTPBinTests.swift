import Foundation
import SluiceCore
import SluiceEndpoints
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The base URL of an httpbin served by gunicorn, a server no one here wrote, from `SLUICE_HTTPBIN_URL`.
///
/// `.ci/run` installs both, starts them on a free loopback port and sets the variable, and sets
/// `SLUICE_REQUIRE_PEERS` so that these tests fail rather than skip when the peer is missing. Elsewhere they are
/// skipped unless the variable is set: `gunicorn -b 127.0.0.1:8080 --timeout 600 httpbin:app`, then
/// `SLUICE_HTTPBIN_URL=http://127.0.0.1:8080 swift test --filter HTTPBin`.
let httpbin = ProcessInfo.processInfo.environment["SLUICE_HTTPBIN_URL"].flatMap(URL.init(string:))

/// Whether the peers must be there: a run that requires them fails when one is missing.
let peersRequired = ProcessInfo.processInfo.environment["SLUICE_REQUIRE_PEERS"] == "1"

private struct PostUpload: Endpoint {
    static let definition: Definition<PostUpload> = Definition(method: .post, path: "post")
    typealias Response = Echo
    var body: MultipartForm
    var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder() }
}

/// What httpbin's `/post` echoes.
private struct Echo: Decodable, Sendable {
    let form: [String: String]
    let files: [String: String]
    let headers: [String: String]
}

private struct Get: Request {
    typealias ResponseObject = Data
    let url: URL
    var headers: [String: String] = [:]

    func build() throws -> URLRequest {
        var request = URLRequest(url: url)
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}

/// What httpbin's `/gzip`, `/deflate` and `/brotli` say once decoded: the request's fields, and which coding it used.
private struct Compressed: Decodable, Sendable {
    let headers: [String: String]
    let gzipped: Bool?
    let deflated: Bool?
    let brotli: Bool?
}

/// What httpbin's `/stream/n` writes on each line.
private struct StreamedLine: Decodable, Sendable {
    let id: Int
    let url: String
}

@Suite(.enabled(if: httpbin != nil || peersRequired, "SLUICE_HTTPBIN_URL is not set: no httpbin to test against"))
struct HTTPBinTests {
    let base: URL
    let client = APIClient()

    init() throws {
        base = try #require(httpbin, "SLUICE_REQUIRE_PEERS is set, but SLUICE_HTTPBIN_URL is not")
    }

    @Test func readsStreamOfNewlineDelimitedJSONRecordByRecord() async throws {
        var ids: [Int] = []
        let url = base.appendingPathComponent("stream/20")
        for try await line in try await client.jsonLines(Get(url: url), of: StreamedLine.self) {
            ids.append(line.id)
            #expect(line.url == url.absoluteString)
        }
        #expect(ids == Array(0..<20))
    }

    @Test func streamsAMultipartUploadFromDiskToAServerThatRefusesTwoFramings() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-peer-\(UUID().uuidString).txt")
        let content = String(repeating: "a line of the file\n", count: 20_000)
        try Data(content.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let upload = PostUpload(
            body: MultipartForm([
                .field("note", "hello"), .file("doc", fileURL: file, filename: "doc.txt", contentType: "text/plain"),
            ])
        )
        let echo = try await Server.withDefault(Server([.production: base])) { try await client.perform(upload) }
        #expect(echo.form == ["note": "hello"])
        #expect(echo.files["doc"] == content)
    }

    @Test func drippedBytesArriveAsTheyAreSent() async throws {
        var url = URLComponents(url: base.appendingPathComponent("drip"), resolvingAgainstBaseURL: false)
        url?.queryItems = [
            URLQueryItem(name: "numbytes", value: "5"), URLQueryItem(name: "duration", value: "0.5"),
            URLQueryItem(name: "delay", value: "0"),
        ]
        let response = try await client.stream(Get(url: try #require(url?.url)))
        var received = Data()
        for try await chunk in response.body {
            received.append(chunk)
        }
        #expect(received == Data(repeating: UInt8(ascii: "*"), count: 5))
    }

    @Test func anUnacceptedStatusOnAStreamFailsBeforeTheBody() async throws {
        let error = await #expect(throws: SluiceError.self) {
            try await client.stream(Get(url: base.appendingPathComponent("status/503")))
        }
        #expect(error?.code == .status)
        #expect(error?.status?.code == 503)
    }

    /// Sluice's own transport asks for and decodes each coding httpbin sends, as URLSession does.
    @Test(arguments: ["gzip", "deflate", "brotli"])
    func decodesACompressedBodyOnSluicesTransport(_ path: String) async throws {
        let client = APIClient(requestPerformer: SocketRequestPerformer())
        let url = base.appendingPathComponent(path)
        let data = try await client.perform(Get(url: url))
        let echo = try JSONDecoder().decode(Compressed.self, from: data)
        #expect(echo.headers["Accept-Encoding"] == "gzip, deflate, br, zstd")
        #expect([echo.gzipped, echo.deflated, echo.brotli].compactMap { $0 } == [true])
        let response = try await SocketRequestPerformer().stream(URLRequest(url: url))
        #expect(response.headers[.contentEncoding] == (path == "brotli" ? "br" : path))
        let streamed = try await response.body.collect(upTo: 1 << 20)
        #expect(try JSONDecoder().decode(Compressed.self, from: streamed).headers == echo.headers)
    }

    /// Sluice's own transport stores the cookie httpbin's `/cookies/set` sets on its redirect, sends it on the redirect
    /// to `/cookies` and on later requests, and forgets it when `/cookies/delete` expires it.
    @Test func keepsTheCookiesHTTPBinSetsOnSluicesTransport() async throws {
        let performer = SocketRequestPerformer()
        let storage = try #require(performer.cookieStorage)
        func cookies(_ path: String, _ query: String) async throws -> [String: String] {
            var components = URLComponents(url: base.appendingPathComponent(path), resolvingAgainstBaseURL: false)
            components?.percentEncodedQuery = query
            let response = try await performer.perform(URLRequest(url: try #require(components?.url)))
            #expect(response.url?.path == "/cookies")
            let object = try JSONSerialization.jsonObject(with: response.body) as? [String: [String: String]]
            return object?["cookies"] ?? [:]
        }
        #expect(
            try await cookies("cookies/set", "flavour=oatmeal&size=large") == ["flavour": "oatmeal", "size": "large"]
        )
        #expect(try await cookies("cookies", "") == ["flavour": "oatmeal", "size": "large"])
        #expect(try await cookies("cookies/delete", "size") == ["flavour": "oatmeal"])
        #expect(storage.cookies?.map(\.name) == ["flavour"])
    }

    /// A POST without a body reaches httpbin with `Content-Length: 0`, as RFC 9110 asks, and a GET with none.
    @Test func aPostWithoutABodyIsSentALengthOfZero() async throws {
        let performer = SocketRequestPerformer()
        var post = URLRequest(url: base.appendingPathComponent("post"))
        post.httpMethod = "POST"
        let posted = try await performer.perform(post)
        #expect(posted.status.code == 200)
        let echo = try JSONSerialization.jsonObject(with: posted.body) as? [String: Any]
        #expect((echo?["headers"] as? [String: String])?["Content-Length"] == "0")
        let got = try await performer.perform(URLRequest(url: base.appendingPathComponent("get")))
        let getEcho = try JSONSerialization.jsonObject(with: got.body) as? [String: Any]
        #expect((getEcho?["headers"] as? [String: String])?["Content-Length"] == nil)
    }

    /// A body from an async sequence of known length reaches httpbin whole, with its length, on both transports.
    @Test(arguments: TransportKind.plainCases)
    func aBodyFromAnAsyncSequenceArrivesWhole(_ kind: TransportKind) async throws {
        let chunks = (0..<64).map { Data(repeating: UInt8(ascii: "a") + UInt8($0 % 26), count: 1_024) }
        let expected = chunks.reduce(Data(), +)
        var request = URLRequest(url: base.appendingPathComponent("anything"))
        request.httpMethod = "PUT"
        request.setBody(
            AsyncStream { continuation in
                for chunk in chunks {
                    continuation.yield(chunk)
                }
                continuation.finish()
            },
            length: Int64(expected.count)
        )
        let response = try await kind.makePerformer().perform(request)
        #expect(response.status.code == 200)
        let echo = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
        #expect((echo?["headers"] as? [String: String])?["Content-Length"] == "\(expected.count)")
        #expect(echo?["data"] as? String == String(decoding: expected, as: UTF8.self))
    }

    @Test func aRangeRequestGetsThePartAsked() async throws {
        let url = base.appendingPathComponent("range/1024")
        let response = try await client.stream(Get(url: url, headers: ["Range": "bytes=1000-"]))
        #expect(response.status.code == 206)
        #expect(response.headers[.contentRange] == "bytes 1000-1023/1024")
        let body = try await response.body.collect(upTo: 1_024)
        #expect(body.count == 24)
    }
}
