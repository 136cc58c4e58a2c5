import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import TestSupport
import Testing

@testable import SluiceTransport

/// Sluice's own transport asks for compressed bodies and decodes them, buffered, streamed and downloaded; what it
/// leaves as sent; and how a bad body fails, against the loopback server.
@Suite struct CompressedBodyTests {
    let server: LoopbackServer
    let performer = SocketRequestPerformer()
    let body = sampleText(bytes: 200_000)

    init() throws {
        server = try LoopbackServer()
    }

    /// Routes a path to the body encoded with a coding.
    func serve(_ path: String, _ encoded: Data, coding: String, chunked: Bool = false) {
        var response = LoopbackServer.Response(body: encoded).addingHeader("Content-Encoding", coding)
        if chunked {
            response = response.injecting(.chunked(chunkSize: 1_000))
        }
        server.route(path, response: response)
    }

    @Test func asksForWhatItDecodes() async throws {
        #expect(SocketRequestPerformer.decodedContentCodings == ["gzip", "deflate", "br", "zstd"])
        #expect(SocketRequestPerformer.undecodedContentCodings.isEmpty)
        server.route("/plain", response: .text("plain"))
        _ = try await performer.perform(URLRequest(url: server.url("/plain")))
        #expect(server.receivedRequests.first?.header("Accept-Encoding") == "gzip, deflate, br, zstd")
    }

    @Test(arguments: EncodedSample.all)
    func decodesABufferedBodyKeepingItsFieldsAsSent(_ sample: EncodedSample) async throws {
        let encoded = try sample.encoded(body)
        serve("/encoded", encoded, coding: sample.coding)
        let response = try await performer.perform(URLRequest(url: server.url("/encoded")))
        #expect(response.body == body)
        #expect(response.headers[.contentEncoding] == sample.coding)
        #expect(response.headers[.contentLength] == String(encoded.count))
    }

    @Test(arguments: EncodedSample.all)
    func decodesAStreamedBodyInBoundedChunks(_ sample: EncodedSample) async throws {
        let encoded = try sample.encoded(body)
        serve("/encoded", encoded, coding: sample.coding, chunked: true)
        let response = try await performer.stream(URLRequest(url: server.url("/encoded")))
        #expect(response.body.expectedLength == nil)
        var received = Data()
        for try await chunk in response.body {
            #expect(chunk.count <= ContentDecoder.chunkSize)
            received.append(chunk)
        }
        #expect(received == body)
    }

    @Test func aDownloadIsWrittenDecoded() async throws {
        serve("/file", try #require(TestCompressor.gzip(body)), coding: "gzip")
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.txt")
        let client = APIClient(requestPerformer: performer)
        _ = try await client.download(Raw(url: server.url("/file")), to: destination).finished()
        #expect(try Data(contentsOf: destination) == body)
    }

    @Test func aRequestNamingItsOwnCodingsGetsTheBytesAsSent() async throws {
        let encoded = try #require(TestCompressor.gzip(body))
        serve("/encoded", encoded, coding: "gzip")
        var request = URLRequest(url: server.url("/encoded"))
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        let response = try await performer.perform(request)
        #expect(response.body == encoded)
        #expect(server.receivedRequests.first?.header("Accept-Encoding") == "gzip")
    }

    @Test func aRangeRequestGetsTheBytesAsSentAndAsksForNoCoding() async throws {
        let encoded = try #require(TestCompressor.gzip(body))
        serve("/encoded", encoded, coding: "gzip")
        var request = URLRequest(url: server.url("/encoded"))
        request.setValue("bytes=0-", forHTTPHeaderField: "Range")
        let response = try await performer.perform(request)
        #expect(response.body == encoded)
        #expect(server.receivedRequests.first?.header("Accept-Encoding") == nil)
    }

    @Test func withDecompressionOffNothingIsAskedForOrDecoded() async throws {
        let encoded = try #require(TestCompressor.gzip(body))
        serve("/encoded", encoded, coding: "gzip")
        let performer = SocketRequestPerformer(configuration: .init(decompressesBodies: false))
        let response = try await performer.perform(URLRequest(url: server.url("/encoded")))
        #expect(response.body == encoded)
        #expect(server.receivedRequests.first?.header("Accept-Encoding") == nil)
    }

    @Test(arguments: ["compress", "gzip, x-custom", "identity"])
    func aCodingItDoesNotKnowIsHandedOverAsSent(_ coding: String) async throws {
        serve("/encoded", Data("as sent".utf8), coding: coding)
        let response = try await performer.perform(URLRequest(url: server.url("/encoded")))
        #expect(response.body == Data("as sent".utf8))
        #expect(response.headers[.contentEncoding] == coding)
    }

    @Test func aHeadRequestForAnEncodedBodyHasNoBody() async throws {
        serve("/encoded", try #require(TestCompressor.gzip(body)), coding: "gzip")
        var request = URLRequest(url: server.url("/encoded"))
        request.httpMethod = "HEAD"
        let response = try await performer.perform(request)
        #expect(response.body.isEmpty)
    }

    @Test func aCorruptBodyFailsNamingTheCodingAndWhere() async throws {
        serve("/corrupt", Data(repeating: 0xFF, count: 64), coding: "gzip")
        let error = await #expect(throws: SluiceError.self) {
            try await performer.perform(URLRequest(url: server.url("/corrupt")))
        }
        #expect(
            error?.message
                == "the response body's gzip coding is corrupt at byte 2 of the body as received: incorrect header check (2 bytes received, 0 decoded)"
        )
        #expect(error?.code == .transport)
    }

    @Test func aStreamedBodyCutShortFailsAfterWhatItDecoded() async throws {
        let encoded = try #require(TestCompressor.gzip(body))
        serve("/cut", Data(encoded.prefix(encoded.count / 2)), coding: "gzip")
        let response = try await performer.stream(URLRequest(url: server.url("/cut")))
        var received = 0
        let error = await #expect(throws: SluiceError.self) {
            for try await chunk in response.body {
                received += chunk.count
            }
        }
        #expect(received > 0 && received < body.count)
        #expect(error?.message.hasPrefix("the response body's gzip coding ends early: the body ended after ") == true)
    }

    @Test func aBufferedBodyPastTheLimitOnceDecodedFails() async throws {
        let encoded = try #require(TestCompressor.gzip(body))
        serve("/large", encoded, coding: "gzip")
        let performer = SocketRequestPerformer(configuration: .init(maximumBodySize: 100_000))
        let error = await #expect(throws: SluiceError.self) {
            try await performer.perform(URLRequest(url: server.url("/large")))
        }
        #expect(
            error?.message.hasPrefix("the response body is more than 100000 bytes once its gzip coding is decoded")
                == true
        )
    }

    @Test func aBombFailsAtTheRatioBound() async throws {
        let encoded = try #require(TestCompressor.gzip(Data(count: 16 << 20)))
        serve("/bomb", encoded, coding: "gzip")
        let error = await #expect(throws: SluiceError.self) {
            try await performer.perform(URLRequest(url: server.url("/bomb")))
        }
        #expect(error?.message.hasPrefix("the response body's gzip coding expands more than 100 times") == true)
        let streamed = try await performer.stream(URLRequest(url: server.url("/bomb")))
        let streamError = await #expect(throws: SluiceError.self) { try await streamed.body.collect(upTo: 64 << 20) }
        #expect(streamError?.message == error?.message)
    }
}
