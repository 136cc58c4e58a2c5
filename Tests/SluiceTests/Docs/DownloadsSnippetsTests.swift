import ClientFixtures
// The snippets of the "Downloads" article and of the download types' documentation, verbatim, run against a file
// served on loopback; and the diagnostic the article shows, produced by the failure it describes.
import Foundation
import Sluice
import SluiceTesting
import Testing

/// The article's request: a yearly report, from the loopback server of the test running it.
private struct GetReport: Request {
    typealias ResponseObject = Data
    @TaskLocal static var server = URL(fileURLWithPath: "/")

    let year: Int

    func build() throws -> URLRequest {
        URLRequest(url: GetReport.server.appendingPathComponent("reports/\(year).pdf"))
    }
}

@Suite struct DownloadsSnippetsTests {
    let report = sampleBytes(50_000)

    /// Serves the report with an ETag, each response with the next of some faults, and runs a snippet against it with
    /// a scratch directory for its downloads.
    private func withReport<Output>(
        faults: [LoopbackServer.Response.Fault?] = [],
        _ snippet: (_ client: APIClient, _ downloads: URL) async throws -> Output
    ) async throws -> Output {
        let server = try LoopbackServer()
        defer { server.stop() }
        let file = RangedFile(report, validators: [.init("ETag", "\"2025\"")], faults: faults)
        server.route("/reports/2025.pdf", respond: file.respond)
        let scratch = try ScratchDirectory()
        return try await GetReport.$server.withValue(server.baseURL) {
            try await snippet(APIClient(), scratch.url)
        }
    }

    @Test func download() async throws {
        let printed = try await withReport { client, downloads in
            try await SnippetOutput.collect {
                let destination = downloads.appendingPathComponent("report-2025.pdf")
                let result = try await client.download(GetReport(year: 2025), to: destination).finished()
                print(result.bytes, result.response.status)
                #expect(try Data(contentsOf: destination) == report)
            }
        }
        #expect(printed == ["50000 200 OK"])
    }

    @Test func progress() async throws {
        let printed = try await withReport { client, downloads in
            let destination = downloads.appendingPathComponent("report-2025.pdf")
            return try await SnippetOutput.collect {
                let download = client.download(GetReport(year: 2025), to: destination)
                for await progress in download.progress {
                    if let fraction = progress.fractionCompleted {
                        print("\(Int(fraction * 100))%")
                    }
                }
                let result = try await download.finished()
                #expect(result.bytes == 50_000)
            }
        }
        #expect(printed.last == "100%")
    }

    @Test func resume() async throws {
        let printed = try await withReport(faults: [.closeMidBody(afterBytes: 20_000)]) { client, downloads in
            let destination = downloads.appendingPathComponent("report-2025.pdf")
            return try await SnippetOutput.collect {
                for _ in 0..<2 {
                    do {
                        let result = try await client.download(GetReport(year: 2025), to: destination).finished()
                        print("resumed from", result.resumedFrom ?? 0)
                    } catch let error as SluiceError where error.code == .transport || error.code == .cancelled {
                        print("kept for later:", FileManager.default.fileExists(atPath: destination.path + ".part"))
                    }
                }
            }
        }
        #expect(printed == ["kept for later: true", "resumed from 20000"])
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func theDiagnosticTheArticleShows() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("/reports/2025.pdf", response: LoopbackServer.Response(body: report))
        let scratch = try ScratchDirectory()
        let destination = scratch.file("report-2025.pdf")
        try FileManager.default.createSymbolicLink(atPath: destination.path + ".part", withDestinationPath: "/dev/full")
        let error = await #expect(throws: SluiceError.self) {
            try await GetReport.$server.withValue(server.baseURL) {
                try await APIClient().download(GetReport(year: 2025), to: destination).finished()
            }
        }
        let description = try #require(error?.description)
            .replacingOccurrences(of: scratch.url.path, with: "/data")
            .replacingOccurrences(of: server.baseURL.absoluteString, with: "https://files.example.com")
        #expect(
            description == """
                error: cannot write to /data/report-2025.pdf.part: No space left on device
                  --> GET https://files.example.com/reports/2025.pdf [stage: deserialize]
                   |
                   | status: 200 OK
                """
        )
    }

    @Test func theTypesDocumentation() async throws {
        let printed = try await withReport { client, downloads in
            let destination = downloads.appendingPathComponent("report-2025.pdf")
            return try await SnippetOutput.collect {
                do {  // Download
                    let download = client.download(GetReport(year: 2025), to: destination)
                    for await progress in download.progress {
                        print(progress.bytesTransferred, progress.expectedBytes ?? -1)
                    }
                    let result = try await download.finished()
                    print(result.url.lastPathComponent, result.bytes)
                }
                do {  // Client.download(_:to:resuming:)
                    let result = try await client.download(GetReport(year: 2025), to: destination).finished()
                    print(result.resumedFrom ?? 0)
                }
            }
        }
        #expect(printed.last == "0")
        #expect(printed.dropLast().last == "report-2025.pdf 50000")
        #expect(printed.dropLast(2).last == "50000 50000")
    }
}
