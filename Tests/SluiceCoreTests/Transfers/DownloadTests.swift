import ClientFixtures
import Foundation
import SluiceTesting
import Testing

@testable import SluiceCore

/// Downloads through the client, each test that transfers over plain TCP and inside TLS (through a relay that passes
/// the loopback server's cuts and ranges on as they are).
@Suite struct DownloadTests {
    let content = sampleBytes(100_000)
    let eTag = HTTPHeaders.Field("ETag", "\"v1\"")

    @Test(arguments: TransportKind.socketCases)
    func writesTheBodyToTheDestinationInPlaceOfTheFileThereAndLeavesNoPartialFile(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let file = RangedFile(content, validators: [eTag])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        try Data("an older file".utf8).write(to: destination)

        let result = try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        #expect(try Data(contentsOf: destination) == content)
        #expect(result.url == destination)
        #expect(result.bytes == 100_000)
        #expect(result.resumedFrom == nil)
        #expect(result.response.status == .ok)
        #expect(result.response.headers[.eTag] == "\"v1\"")
        #expect(scratch.names == ["file.bin"])
        #expect(server.receivedRequests.first?.header("Range") == nil)
    }

    @Test(arguments: TransportKind.socketCases, [nil, LoopbackServer.Response.Fault.chunked(chunkSize: 4_096)])
    func progressRisesToTheTotal(_ kind: TransportKind, framing: LoopbackServer.Response.Fault?) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        server.route("/file", response: LoopbackServer.Response(body: content, fault: framing))
        let scratch = try ScratchDirectory()
        let download = kind.makeClient().download(Raw(url: origin.url("/file")), to: scratch.file("file.bin"))
        var reports: [TransferProgress] = []
        for await progress in download.progress {
            reports.append(progress)
        }
        let result = try await download.finished()
        #expect(result.bytes == 100_000)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesTransferred <= $1.bytesTransferred })
        #expect(reports.last == TransferProgress(bytesTransferred: 100_000, expectedBytes: 100_000))
        #expect(reports.last?.fractionCompleted == 1)
        // Without a Content-Length the total is known only at the end.
        let totalKnownEarly = framing == nil
        #expect(reports.dropLast().allSatisfy { ($0.expectedBytes == 100_000) == totalKnownEarly })
    }

    @Test(
        arguments: TransportKind.socketCases,
        [
            HTTPHeaders.Field("ETag", "\"v1\""), HTTPHeaders.Field("Last-Modified", "Sat, 21 Nov 2026 10:00:00 GMT"),
        ]
    )
    func resumesACutDownloadWithRangeAndIfRange(_ kind: TransportKind, validator: HTTPHeaders.Field) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let file = RangedFile(content, validators: [validator], faults: [.closeMidBody(afterBytes: 40_000)])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        let client = kind.makeClient()

        let error = await #expect(throws: SluiceError.self) {
            try await client.download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(error?.code == .transport)
        #expect(error?.message.hasPrefix("the response body failed after 40000 of 100000 bytes: ") == true)
        #expect(scratch.names == ["file.bin.part", "file.bin.part.resume"])
        #expect(scratch.size(of: "file.bin.part") == 40_000)

        let download = client.download(Raw(url: origin.url("/file")), to: destination)
        let first = await download.progress.first { _ in true }
        let result = try await download.finished()
        #expect(first?.bytesTransferred ?? 0 >= 40_000)
        #expect(result.resumedFrom == 40_000)
        #expect(result.bytes == 100_000)
        #expect(result.response.status == .partialContent)
        #expect(try Data(contentsOf: destination) == content)
        #expect(scratch.names == ["file.bin"])
        let resumed = try #require(server.receivedRequests.last)
        #expect(resumed.header("Range") == "bytes=40000-")
        #expect(resumed.header("If-Range") == validator.value)
    }

    @Test(arguments: TransportKind.socketCases)
    func aCutDownloadWithoutAValidatorIsRemovedAndTheNextStartsOver(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let file = RangedFile(content, faults: [.closeMidBody(afterBytes: 40_000)])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")

        await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(scratch.names.isEmpty)
        let result = try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        #expect(result.resumedFrom == nil)
        #expect(try Data(contentsOf: destination) == content)
        #expect(server.receivedRequests.last?.header("Range") == nil)
    }

    @Test(arguments: TransportKind.socketCases, [false, true])
    func aFullResponseToAResumeStartsOver(_ kind: TransportKind, contentChanged: Bool) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let first = RangedFile(content, validators: [eTag], faults: [.closeMidBody(afterBytes: 40_000)])
        server.route("/file", respond: first.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(scratch.size(of: "file.bin.part") == 40_000)

        // A server without range support answers 200; one whose file changed answers 200 with the new file, as
        // If-Range asks.
        let replacement = contentChanged ? sampleBytes(60_000, seed: 2) : content
        if contentChanged {
            let changed = RangedFile(replacement, validators: [.init("ETag", "\"v2\"")])
            server.route("/file", respond: changed.respond)
        } else {
            server.route("/file", response: LoopbackServer.Response(headers: [eTag], body: content))
        }
        let download = kind.makeClient().download(Raw(url: origin.url("/file")), to: destination)
        var reports: [TransferProgress] = []
        for await progress in download.progress {
            reports.append(progress)
        }
        let result = try await download.finished()
        #expect(result.resumedFrom == nil)
        #expect(result.response.status == .ok)
        #expect(try Data(contentsOf: destination) == replacement)
        #expect(scratch.names == ["file.bin"])
        #expect(reports.first?.bytesTransferred == 0)
        #expect(server.receivedRequests.last?.header("If-Range") == "\"v1\"")
    }

    @Test(arguments: TransportKind.socketCases)
    func aPartialResponseWithAnotherValidatorFailsAndRemovesThePartialFile(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let scratch = try ScratchDirectory()
        let destination = try partialDownload(of: content, cutAt: 40_000, in: scratch)
        // A server that ignores If-Range and sends the range of a file that has changed.
        server.route("/file") { _ in
            LoopbackServer.Response(
                status: 206,
                headers: [
                    HTTPHeaders.Field("ETag", "\"v2\""), HTTPHeaders.Field("Content-Range", "bytes 40000-99999/100000"),
                ],
                body: Data(count: 60_000)
            )
        }
        let error = await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(error?.code == .status)
        #expect(
            error?.description == """
                error: the file changed on the server: its ETag was "v1" when the partial file was written, and is \
                now "v2"
                  --> GET \(origin.url("/file").absoluteString) [stage: status]
                   |
                   | status: 206 Partial Content
                """
        )
        #expect(scratch.names.isEmpty)
    }

    @Test(
        arguments: TransportKind.socketCases,
        [
            ("bytes 0-99999/100000", #""bytes 0-99999/100000""#),
            ("bytes 40000-99999/120000", #""bytes 40000-99999/120000""#),
            ("bytes 40000-49999/100000", #""bytes 40000-49999/100000""#),
            ("bytes 40000-99999", #""bytes 40000-99999""#),
            (nil, "none"),
        ]
    )
    func aPartialResponseThatDoesNotContinueTheFileFailsAndRemovesThePartialFile(
        _ kind: TransportKind,
        _ range: (contentRange: String?, received: String)
    ) async throws {
        let (contentRange, received) = range
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let scratch = try ScratchDirectory()
        let destination = try partialDownload(of: content, cutAt: 40_000, in: scratch)
        let headers = [eTag] + (contentRange.map { [.init("Content-Range", $0)] } ?? [])
        server.route("/file") { _ in LoopbackServer.Response(status: 206, headers: headers, body: Data(count: 60_000)) }
        let error = await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(error?.code == .status)
        #expect(
            error?.message
                == "the partial response does not continue the file: expected Content-Range bytes 40000-99999/100000, "
                + "received \(received)"
        )
        #expect(error?.status == .partialContent)
        #expect(scratch.names.isEmpty)
    }

    @Test(arguments: TransportKind.socketCases)
    func aRangeNotSatisfiableForACompletePartialFileMovesItIntoPlace(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let file = RangedFile(content, validators: [eTag])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        // An earlier download wrote every byte, then stopped before the move.
        try content.write(to: scratch.file("file.bin.part"))
        try #require(ResumeRecord(headers: ["ETag": "\"v1\""], completeLength: 100_000))
            .save(to: scratch.file("file.bin.part.resume"))

        let result = try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        #expect(result.resumedFrom == 100_000)
        #expect(result.response.status.code == 416)
        #expect(try Data(contentsOf: destination) == content)
        #expect(scratch.names == ["file.bin"])
    }

    @Test(arguments: TransportKind.socketCases)
    func aRangeNotSatisfiableForAnotherPartialFileStartsOver(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let shorter = sampleBytes(30_000)
        let file = RangedFile(shorter, validators: [eTag])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        try content.prefix(40_000).write(to: scratch.file("file.bin.part"))
        try #require(ResumeRecord(headers: ["ETag": "\"v1\""], completeLength: nil))
            .save(to: scratch.file("file.bin.part.resume"))

        let result = try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        #expect(result.resumedFrom == nil)
        #expect(try Data(contentsOf: destination) == shorter)
        #expect(server.receivedRequests.map { $0.header("Range") } == ["bytes=40000-", nil])
    }

    @Test(arguments: [
        ("20", "the response body ended after 7 of the 20 bytes its Content-Length announced"),
        ("4", "the response body is longer than the 4 bytes its Content-Length announced"),
    ])
    func aBodyThatDoesNotMatchItsContentLengthFails(contentLength: String, message: String) async throws {
        let performer = ScriptedStreamPerformer([
            .init(headers: ["Content-Length": contentLength], chunks: ["0123", "456"])
        ])
        let scratch = try ScratchDirectory()
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer)
                .download(Raw(url: URL(fileURLWithPath: "/file")), to: scratch.file("file.bin"))
                .finished()
        }
        #expect(error?.code == .transport)
        #expect(error?.message == message)
        #expect(scratch.names.isEmpty)
    }

    @Test func aCutEncodedBodyIsRemovedForItCannotBeResumed() async throws {
        // The transport hands out the decoded bytes, which a Range of encoded bytes cannot continue.
        let performer = ScriptedStreamPerformer([
            .init(
                headers: ["ETag": "\"v1\"", "Content-Encoding": "gzip", "Content-Length": "4"],
                chunks: ["0123456"],
                failure: URLError(.networkConnectionLost)
            )
        ])
        let scratch = try ScratchDirectory()
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer)
                .download(Raw(url: URL(fileURLWithPath: "/file")), to: scratch.file("file.bin"))
                .finished()
        }
        #expect(error?.message.hasPrefix("the response body failed after 7 of 4 bytes: ") == true)
        #expect(scratch.names.isEmpty)
    }

    @Test func anEncodedPartialResponseFailsAndRemovesThePartialFile() async throws {
        let performer = ScriptedStreamPerformer([
            .init(
                status: .partialContent,
                headers: ["ETag": "\"v1\"", "Content-Encoding": "gzip", "Content-Range": "bytes 40000-99999/100000"],
                chunks: ["encoded"]
            )
        ])
        let scratch = try ScratchDirectory()
        let destination = try partialDownload(of: content, cutAt: 40_000, in: scratch)
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient(requestPerformer: performer)
                .download(Raw(url: URL(fileURLWithPath: "/file")), to: destination)
                .finished()
        }
        #expect(
            error?.message
                == "the partial response is encoded (Content-Encoding: gzip): its bytes cannot continue the decoded file"
        )
        #expect(scratch.names.isEmpty)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")), arguments: TransportKind.socketCases)
    func aDiskThatFailsWhileWritingFailsNamingTheFileAndRemovesThePartialFile(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        server.route("/file", response: LoopbackServer.Response(headers: [eTag], body: content))
        let scratch = try ScratchDirectory()
        // The partial file is a link to a device that is always full.
        let partial = scratch.file("file.bin.part")
        try FileManager.default.createSymbolicLink(atPath: partial.path, withDestinationPath: "/dev/full")

        let error = await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: scratch.file("file.bin")).finished()
        }
        #expect(error?.code == .deserialize)
        #expect(
            error?.description == """
                error: cannot write to \(partial.path): No space left on device
                  --> GET \(origin.url("/file").absoluteString) [stage: deserialize]
                   |
                   | status: 200 OK
                """
        )
        #expect((error?.underlyingError as? POSIXError)?.code == .ENOSPC)
        #expect(scratch.names.isEmpty)
    }

    /// Plain only: it fails before any connection, so TLS never comes into it.
    @Test func aDestinationInAMissingDirectoryFailsBeforeSending() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: LoopbackServer.Response(body: content))
        let scratch = try ScratchDirectory()
        let destination = scratch.file("missing").appendingPathComponent("file.bin")
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient().download(Raw(url: server.url("/file")), to: destination).finished()
        }
        #expect(error?.code == .deserialize)
        #expect(error?.message == "cannot create \(destination.path).part: No such file or directory")
        #expect(server.requestCount == 0)
    }

    /// Plain only: it fails before any connection, so TLS never comes into it.
    @Test func aDestinationThatIsNotAFileFailsBeforeSending() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/file", response: LoopbackServer.Response(body: content))
        let destination = try #require(URL(string: "https://example.com/file.bin"))
        let error = await #expect(throws: SluiceError.self) {
            try await APIClient().download(Raw(url: server.url("/file")), to: destination).finished()
        }
        #expect(error?.message == "a download's destination must be a file URL, not https://example.com/file.bin")
        #expect(server.requestCount == 0)
    }

    @Test(arguments: TransportKind.socketCases)
    func anUnacceptedStatusLeavesAnEarlierPartialFileForLater(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let scratch = try ScratchDirectory()
        let destination = try partialDownload(of: content, cutAt: 40_000, in: scratch)
        server.route("/file", response: .text("busy", status: 503))
        let error = await #expect(throws: SluiceError.self) {
            try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        }
        #expect(error?.code == .status)
        #expect(error?.message == "unacceptable status 503 Service Unavailable")
        #expect(scratch.size(of: "file.bin.part") == 40_000)
        #expect(scratch.names == ["file.bin.part", "file.bin.part.resume"])
    }

    @Test func aClientThatDoesNotStreamFailsSayingSo() async throws {
        struct BufferingClient: Client {
            func perform<R: Request>(_ request: R) async throws(SluiceError) -> R.ResponseObject {
                throw SluiceError(.transport, message: "not used")
            }
        }
        let scratch = try ScratchDirectory()
        let error = await #expect(throws: SluiceError.self) {
            try await BufferingClient().download(Raw(url: URL(fileURLWithPath: "/file")), to: scratch.file("file.bin"))
                .finished()
        }
        #expect(error?.message == "BufferingClient does not stream responses")
        #expect(scratch.names.isEmpty)
    }

    @Test func aMockClientDownloadsAStubbedStreamMatchedByTheRequestItWasGiven() async throws {
        let scratch = try ScratchDirectory()
        let mock = MockClient()
        mock.stub(Raw.self, .stream(MockClient.StreamScript(parts: [.text("first "), .text("second")])))
        let result = try await mock.download(Raw(url: URL(fileURLWithPath: "/file")), to: scratch.file("file.bin"))
            .finished()
        #expect(result.bytes == 12)
        #expect(try Data(contentsOf: scratch.file("file.bin")) == Data("first second".utf8))
    }

    @Test(arguments: TransportKind.socketCases, [false, true])
    func cancellingKeepsThePartialFileForResuming(_ kind: TransportKind, byCancellingTheWaiter: Bool) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        // About forty seconds for the whole body: the download is cancelled at its first bytes, which a test starved
        // by the cases beside it under a sanitizer (the TLS ones among them) may see seconds late.
        server.route(
            "/file",
            response: LoopbackServer.Response(
                headers: [eTag],
                body: content,
                fault: .drip(bytes: 256, every: .milliseconds(100))
            )
        )
        let scratch = try ScratchDirectory()
        let destination = scratch.file("file.bin")
        let download = kind.makeClient().download(Raw(url: origin.url("/file")), to: destination)
        let waiter = Task { try await download.finished() }
        // A report after the head's comes once a chunk is in the partial file.
        for await progress in download.progress where progress.bytesTransferred > 0 {
            break
        }
        if byCancellingTheWaiter {
            waiter.cancel()
        } else {
            download.cancel()
        }
        let error = await #expect(throws: SluiceError.self) { try await waiter.value }
        #expect(error?.code == .cancelled)
        let kept = try #require(scratch.size(of: "file.bin.part"))
        #expect(kept > 0 && kept < 100_000)
        #expect(scratch.names == ["file.bin.part", "file.bin.part.resume"])

        let file = RangedFile(content, validators: [eTag])
        server.route("/file", respond: file.respond)
        let result = try await kind.makeClient().download(Raw(url: origin.url("/file")), to: destination).finished()
        #expect(result.resumedFrom == Int64(kept))
        #expect(try Data(contentsOf: destination) == content)
    }

    @Test(arguments: TransportKind.socketCases)
    func notResumingStartsOverWithoutARange(_ kind: TransportKind) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        let file = RangedFile(content, validators: [eTag])
        server.route("/file", respond: file.respond)
        let scratch = try ScratchDirectory()
        let destination = try partialDownload(of: content, cutAt: 40_000, in: scratch)
        let result = try await kind.makeClient()
            .download(Raw(url: origin.url("/file")), to: destination, resuming: false)
            .finished()
        #expect(result.resumedFrom == nil)
        #expect(try Data(contentsOf: destination) == content)
        #expect(server.receivedRequests.map { $0.header("Range") } == [nil])
        #expect(scratch.names == ["file.bin"])
    }

    @Test(arguments: TransportKind.socketCases)
    func sixteenMebibytesArriveWhole(_ kind: TransportKind) async throws {
        let large = sampleBytes(16 << 20)
        let server = try LoopbackServer()
        defer { server.stop() }
        let origin = try await kind.origin(of: server)
        server.route("/large", response: LoopbackServer.Response(body: large))
        let scratch = try ScratchDirectory()
        let result = try await kind.makeClient().download(Raw(url: origin.url("/large")), to: scratch.file("large.bin"))
            .finished()
        #expect(result.bytes == Int64(large.count))
        #expect(try Data(contentsOf: scratch.file("large.bin")) == large)
    }

    /// Leaves the partial file of a download cut after some bytes, with its record, as a download of a file served with
    /// `ETag: "v1"` leaves them; returns the destination.
    private func partialDownload(
        of content: Data,
        cutAt bytes: Int,
        in scratch: ScratchDirectory
    ) throws -> URL {
        try content.prefix(bytes).write(to: scratch.file("file.bin.part"))
        try #require(ResumeRecord(headers: ["ETag": "\"v1\""], completeLength: Int64(content.count)))
            .save(to: scratch.file("file.bin.part.resume"))
        return scratch.file("file.bin")
    }
}
