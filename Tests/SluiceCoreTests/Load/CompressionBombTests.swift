import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A gzip bomb: a body of a quarter of a megabyte that decodes to 256 MiB of zeros, made by the system's `gzip` once.
enum CompressionBomb {
    /// The decoded size.
    static let decodedSize = 256 << 20

    /// The compressed bytes, or `nil` where no `gzip` can be run.
    static let bytes: Data? = {
        let gzip = ["/bin/gzip", "/usr/bin/gzip"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let gzip else { return nil }
        let input = Pipe()
        let output = Pipe()
        let process = try? ChildProcess(
            URL(fileURLWithPath: gzip),
            ["-9", "-c"],
            standardInput: .pipe(input),
            standardOutput: .pipe(output)
        )
        guard let process else { return nil }
        let writer = Thread {
            let zeros = Data(count: 1 << 20)
            for _ in 0..<(decodedSize >> 20) {
                input.fileHandleForWriting.write(zeros)
            }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? compressed : nil
    }()
}

extension SoakTests {
    /// Sluice's own transport decodes nothing: it hands over the compressed bytes and their `Content-Encoding`, and
    /// the process's peak stays far below the decoded size (the bound is half of it: other suites run meanwhile).
    @Test func aGzipBombReachesTheCallerCompressedOnSluicesTransport() async throws {
        let bomb = try #require(CompressionBomb.bytes, "gzip could not be run")
        let server = try LoopbackServer()
        server.route("/bomb", response: LoopbackResponse(body: bomb).addingHeader("Content-Encoding", "gzip"))
        let limit = 16 << 20
        let performer = TransportKind.sockets.makePerformer(maximumBodySize: limit)
        // Measured once more when the first peak is over the bound: another suite may have held a large body.
        func run() async throws -> Int? {
            var received: HTTPResponse?
            let growth = await PeakMemory.growthAwaiting {
                received = try? await performer.perform(URLRequest(url: server.url("/bomb")))
            }
            let response = try #require(received)
            #expect(response.body == bomb)
            #expect(response.headers["Content-Encoding"] == "gzip")
            return growth
        }
        let bound = CompressionBomb.decodedSize / 2
        guard var growth = try await run() else { return }
        if growth >= bound, let again = try await run() {
            growth = min(growth, again)
        }
        #expect(growth < bound, "the peak grew by \(growth >> 20) MiB")
    }

    /// URLSession ends a gzip bomb with the body limit's error, and holds back libcurl while it does.
    ///
    /// FoundationNetworking always has libcurl decode what it is sent (`CURLOPT_ACCEPT_ENCODING` is set whatever the
    /// request says), and libcurl inflates all it has read in one call. It hands the delegate each piece through the
    /// delegate queue, which on a session of URLSession's own never makes libcurl wait: by the time the delegate had
    /// seen the limit and cancelled, the peak had grown by the whole decoded size (1,051 MiB for a bomb of a
    /// gibibyte). The performer's own queue makes libcurl wait while 64 pieces are queued; the bound checked is half
    /// the decoded size, since other suites run meanwhile.
    @Test func aGzipBombEndsAtTheBodyLimitOnURLSession() async throws {
        let bomb = try #require(CompressionBomb.bytes, "gzip could not be run")
        let server = try LoopbackServer()
        server.route("/bomb", response: LoopbackResponse(body: bomb).addingHeader("Content-Encoding", "gzip"))
        let limit = 16 << 20
        let performer = TransportKind.urlSession.makePerformer(maximumBodySize: limit)
        func run() async -> Int? {
            var failure: (any Error)?
            let growth = await PeakMemory.growthAwaiting {
                do {
                    _ = try await performer.perform(URLRequest(url: server.url("/bomb")))
                } catch {
                    failure = error
                }
            }
            let error = failure as? SluiceError
            #expect(
                error?.message == "the response body is more than \(limit) bytes, more than the limit of \(limit) bytes"
            )
            return growth
        }
        let bound = CompressionBomb.decodedSize / 2
        guard var growth = await run() else { return }
        if growth >= bound, let again = await run() {
            growth = min(growth, again)
        }
        #expect(growth < bound, "the peak grew by \(growth >> 20) MiB")
    }
}
