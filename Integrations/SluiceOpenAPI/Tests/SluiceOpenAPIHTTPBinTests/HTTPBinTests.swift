import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import Testing

/// httpbin's URL, from `SLUICE_HTTPBIN_URL`; the tests skip without it.
let httpbin = ProcessInfo.processInfo.environment["SLUICE_HTTPBIN_URL"].flatMap(URL.init(string:))

/// Whether a missing httpbin fails the tests rather than skipping them (`SLUICE_REQUIRE_PEERS=1`, as in CI).
let peersRequired = ProcessInfo.processInfo.environment["SLUICE_REQUIRE_PEERS"] == "1"

/// The client generated from `Tests/HTTPBin/openapi.yaml` against httpbin's own routes, through Sluice's transport
/// and through swift-openapi-async-http-client's, the reference: each test makes the same calls on both and expects
/// the same results, and the results httpbin documents.
@Suite(.enabled(if: httpbin != nil || peersRequired, "SLUICE_HTTPBIN_URL is not set: no httpbin to test against"))
struct HTTPBinTests {
    let sluice: Client
    let reference: Client

    init() throws {
        let base = try #require(httpbin, "SLUICE_REQUIRE_PEERS is set, but SLUICE_HTTPBIN_URL is not")
        sluice = Client(serverURL: base, transport: SluiceClientTransport(SocketRequestPerformer()))
        reference = Client(serverURL: base, transport: AsyncHTTPClientTransport())
    }

    /// Runs `call` on Sluice's transport and on the reference, and returns both results, Sluice's first.
    private func both<Result: Sendable>(
        _ call: @Sendable (Client) async throws -> Result
    ) async throws -> (sluice: Result, reference: Result) {
        (try await call(sluice), try await call(reference))
    }

    /// `/get` echoes the query as the runtime encoded it, reserved and non-ASCII characters included.
    @Test func echoesTheQuery() async throws {
        let query = "a b&c=d/é?+"
        let echoes = try await both { try await $0.getEcho(query: .init(q: query)).ok.body.json }
        #expect(echoes.sluice == echoes.reference)
        #expect(echoes.sluice.args.additionalProperties == ["q": query])
    }

    /// `/status/{code}` answers with the status asked for: each documented one as its own case, and one the
    /// document does not list as `undocumented`, with its code.
    @Test(arguments: [200, 204, 404, 503, 418])
    func answersTheStatus(_ code: Int) async throws {
        let statuses = try await both { client in
            switch try await client.getStatus(path: .init(code: code)) {
            case .ok: 200
            case .noContent: 204
            case .notFound: 404
            case .serviceUnavailable: 503
            case .undocumented(let statusCode, _): -statusCode
            }
        }
        #expect(statuses.sluice == statuses.reference)
        #expect(statuses.sluice == (code == 418 ? -418 : code))
    }

    /// `/bytes/{n}` sends `n` random bytes, the same for the same seed: both transports read the same bytes.
    @Test func readsSeededBytes() async throws {
        let count = 65_536
        let bytes = try await both { client in
            let body = try await client.getBytes(path: .init(n: count), query: .init(seed: 7)).ok.body.binary
            return try await [UInt8](collecting: body, upTo: 1 << 20)
        }
        #expect(bytes.sluice.count == count)
        #expect(bytes.sluice == bytes.reference)
    }

    /// `/stream/{n}` sends `n` JSON objects, one a line, as they are written: decoded as JSON Lines, with their ids
    /// in order.
    @Test func streamsJSONLines() async throws {
        let lines = try await both { client in
            let body = try await client.getStream(path: .init(n: 20)).ok.body.any
            var lines: [Components.Schemas.StreamLine] = []
            for try await line in body.asDecodedJSONLines(of: Components.Schemas.StreamLine.self) {
                lines.append(line)
            }
            return lines
        }
        #expect(lines.sluice == lines.reference)
        #expect(lines.sluice.map(\.id) == Array(0..<20))
    }

    /// `/anything` echoes a JSON body, which reaches httpbin as the runtime encoded it.
    @Test func echoesAJSONBody() async throws {
        let order = Components.Schemas.Order(item: "tea", quantity: 3)
        let echoes = try await both { try await $0.postAnything(body: .json(order)).ok.body.json }
        #expect(echoes.sluice == echoes.reference)
        #expect(echoes.sluice.json == order)
        #expect(echoes.sluice.method == "POST")
    }

    /// `/post` echoes a binary body, sent with its length.
    @Test func echoesABinaryBody() async throws {
        let text = "a binary body, \(String(repeating: "0123456789", count: 100))"
        let echoes = try await both { client in
            try await client.postBytes(body: .binary(HTTPBody(Array(text.utf8)))).ok.body.json
        }
        #expect(echoes.sluice == echoes.reference)
        #expect(echoes.sluice.data == text)
    }
}
