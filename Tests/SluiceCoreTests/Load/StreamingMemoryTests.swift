import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

/// A body far larger than memory should hold streams through the client from the loopback server.
///
/// Resident memory is not asserted for `NetworkRequestPerformer` on Linux: FoundationNetworking cannot pause a
/// transfer, so a slow reader's chunks wait in its stream buffer (64 MiB by default) until the stream fails. Only a
/// transport that stops reading its socket when the reader stops holds memory for a slow reader.
///
/// Resident memory is the whole process's, and the suites of a plain `swift test` run side by side: the tests are
/// in the soak's serialized suite, so that none of them counts another's body, and each measures its transfer once
/// more when the first growth is over the bound, since a large body of another suite may have been held meanwhile.
/// A transport that holds what it reads fails both. This namespace holds what they share.
enum StreamingMemoryTests {
    /// The most resident memory may grow by while a body streams through Sluice's own transport.
    static let bound = 64 << 20

    /// The least growth of resident memory over one or two runs of a transfer: the second only when the first grew
    /// past ``bound``.
    ///
    /// - Parameter transfer: Runs the transfer, checks what it received, and returns how far resident memory grew.
    /// - Returns: The growth, in bytes.
    /// - Throws: What the transfer throws.
    static func leastGrowth(of transfer: () async throws -> Int) async throws -> Int {
        let first = try await transfer()
        guard first >= bound else { return first }
        return min(first, try await transfer())
    }

    /// 256 MiB in the plain build; a sanitizer slows every byte, so there the body is 16 MiB.
    static let bodySize: Int64 = SoakTests.sanitizer == nil ? 256 << 20 : 16 << 20

    struct Download: Request {
        typealias ResponseObject = Data
        let url: URL

        func build() throws -> URLRequest {
            URLRequest(url: url)
        }
    }

}

extension SoakTests {
    @Test func aLargeBodyStreamsThroughInOrder() async throws {
        let server = try LoopbackServer()
        server.route("/big", response: .generated(byteCount: StreamingMemoryTests.bodySize, announcingLength: true))
        // A buffer as large as the body: on a machine busy with the rest of the suite the reader may get no time
        // for a while, and this test checks that every byte arrives in order, not what is held.
        let client = APIClient(
            requestPerformer: NetworkRequestPerformer(streamBufferLimit: Int(StreamingMemoryTests.bodySize))
        )
        var received: Int64 = 0
        let response = try await client.stream(StreamingMemoryTests.Download(url: server.url("/big")))
        #expect(response.body.expectedLength == StreamingMemoryTests.bodySize)
        var first = Data()
        var last = Data()
        for try await chunk in response.body {
            if first.count < 1_024 {
                first.append(chunk.prefix(1_024 - first.count))
            }
            received += Int64(chunk.count)
            last = chunk
        }
        #expect(received == StreamingMemoryTests.bodySize)
        #expect(first == LoopbackServer.Response.generatedBytes(in: 0..<1_024))
        #expect(
            last
                == LoopbackServer.Response.generatedBytes(
                    in: (StreamingMemoryTests.bodySize - Int64(last.count))..<StreamingMemoryTests.bodySize
                )
        )
    }

    /// On Linux a reader that falls behind ends the stream with an error, at the performer's buffer limit.
    ///
    /// Resident memory is not bounded here: libcurl reads ahead of URLSession's delegate queue, which holds what it
    /// read until the delegate runs (a bare URLSession delegate that does nothing but count, on a 200 MB loopback
    /// body, sees 16 MB arrive while the process already holds 223 MiB). Only a transport that stops reading its
    /// socket bounds it.
    @Test func aReaderThatFallsBehindEndsTheStreamWithAnError() async throws {
        #if canImport(Darwin)
        // URLSession pauses the transfer instead; nothing fails there.
        #else
        let server = try LoopbackServer()
        server.route("/big", response: .generated(byteCount: StreamingMemoryTests.bodySize, announcingLength: true))
        let limit = Int(StreamingMemoryTests.bodySize / 16)
        let performer = NetworkRequestPerformer(streamBufferLimit: limit)
        let client = APIClient(requestPerformer: performer)
        let response = try await client.stream(StreamingMemoryTests.Download(url: server.url("/big")))
        var received = 0
        let error = await #expect(throws: SluiceError.self) {
            var chunks = response.body.makeAsyncIterator()
            received += try await chunks.next()?.count ?? 0
            // A reader that reads nothing more until the performer has ended the transfer it fell behind.
            try await performer.requestsInFlightGauge.wait(for: "the transfer to end") { $0 == 0 }
            while let chunk = try await chunks.next() {
                received += chunk.count
            }
        }
        #expect(error?.code == .transport)
        #expect(error?.message.contains("fell more than \(limit) bytes behind") == true)
        #expect(performer.requestsInFlight == 0)
        #expect(Int64(received) < StreamingMemoryTests.bodySize)
        #endif
    }
    /// Sluice's own transport stops reading its socket while the reader is behind, so a gibibyte streams through a
    /// reader that is slow at first in bounded memory: resident memory never grows by 64 MiB.
    @Test func aSlowReaderHoldsBoundedMemoryWithSluicesOwnTransport() async throws {
        let size: Int64 = SoakTests.sanitizer == nil ? 1 << 30 : StreamingMemoryTests.bodySize
        let server = try LoopbackServer()
        server.route("/big", response: .generated(byteCount: size, announcingLength: true))
        let client = APIClient(requestPerformer: SocketRequestPerformer())
        let growth = try await StreamingMemoryTests.leastGrowth {
            let start = try #require(SoakTests.residentBytes())
            var peak = start
            var received: Int64 = 0
            var chunks = 0
            let response = try await client.stream(StreamingMemoryTests.Download(url: server.url("/big")))
            for try await chunk in response.body {
                received += Int64(chunk.count)
                chunks += 1
                // Slow for the first 200 chunks (a millisecond each, far slower than the loopback), then as fast as it
                // comes; resident memory is sampled every 64 chunks.
                if chunks <= 200 {
                    try await Task.sleep(for: .milliseconds(1))
                }
                if chunks % 64 == 0, let resident = SoakTests.residentBytes() {
                    peak = max(peak, resident)
                }
            }
            #expect(received == size)
            return peak - start
        }
        if SoakTests.sanitizer == nil {
            #expect(
                growth < StreamingMemoryTests.bound,
                "resident memory grew by \(growth) bytes over a \(size)-byte stream"
            )
        }
    }

    /// A gibibyte downloads to a file through Sluice's own transport, watched by a progress reader that is slow at
    /// first, in bounded memory: resident memory never grows by 64 MiB.
    @Test func aDownloadHoldsBoundedMemoryWithSluicesOwnTransport() async throws {
        let size: Int64 = SoakTests.sanitizer == nil ? 1 << 30 : StreamingMemoryTests.bodySize
        let server = try LoopbackServer()
        server.route("/big", response: .generated(byteCount: size, announcingLength: true))
        let client = APIClient(requestPerformer: SocketRequestPerformer())
        let growth = try await StreamingMemoryTests.leastGrowth {
            let scratch = try ScratchDirectory()
            let start = try #require(SoakTests.residentBytes())
            var peak = start
            let download = client.download(
                StreamingMemoryTests.Download(url: server.url("/big")),
                to: scratch.file("big.bin")
            )
            var reports = 0
            for await _ in download.progress {
                reports += 1
                if reports <= 100 {
                    try await Task.sleep(for: .milliseconds(1))
                }
                if let resident = SoakTests.residentBytes() {
                    peak = max(peak, resident)
                }
            }
            let result = try await download.finished()
            #expect(result.bytes == size)
            #expect(scratch.size(of: "big.bin") == Int(size))
            return peak - start
        }
        if SoakTests.sanitizer == nil {
            #expect(
                growth < StreamingMemoryTests.bound,
                "resident memory grew by \(growth) bytes over a \(size)-byte download"
            )
        }
    }
}

extension SoakTests {
    /// A reader that stays a little behind a WebSocket's server holds no more than the read-ahead: each message it
    /// has read is let go at once, not kept until the reader catches up.
    @Test func aSlowWebSocketReaderHoldsBoundedMemory() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let size = 64 << 10
        let count = Int(StreamingMemoryTests.bodySize) / size
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let growth = try await StreamingMemoryTests.leastGrowth {
            var received = 0
            var failure: (any Error)?
            let growth = await PeakMemory.growthAwaiting {
                do {
                    let socket = try await performer.webSocket(peer.request("/stream/\(count)/\(size)"))
                    for try await message in socket.messages {
                        guard case .binary(let data) = message else { continue }
                        // Work on every byte, so that the reader falls behind a server on loopback.
                        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                        for byte in data {
                            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                        }
                        #expect(hash != 0)
                        received += data.count
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            #expect(received == count * size)
            return growth ?? 0
        }
        #expect(growth < StreamingMemoryTests.bound, "resident memory grew by \(growth >> 20) MiB")
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }
}

extension SoakTests {
    /// A sender a little ahead of its server holds about the send buffer: what has gone out is let go, not kept until
    /// everything has.
    @Test func aFastWebSocketSenderHoldsBoundedMemory() async throws {
        guard let peer = try await WebSocketPeer.start() else { return }
        let size = 64 << 10
        let count = Int(StreamingMemoryTests.bodySize) / size
        let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
        let performer = SocketRequestPerformer(configuration: .init(proxies: .none, fallback: NoFallback()))
        let growth = try await StreamingMemoryTests.leastGrowth {
            var counted: WebSocket.Message?
            var failure: (any Error)?
            let growth = await PeakMemory.growthAwaiting {
                do {
                    let socket = try await performer.webSocket(peer.request("/sink"))
                    for _ in 0..<count {
                        try await socket.send(.binary(payload))
                    }
                    try await socket.send(.text("done"))
                    counted = try await socket.receive()
                    await socket.close()
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            #expect(counted == .text(String(count * size)))
            return growth ?? 0
        }
        #expect(growth < StreamingMemoryTests.bound, "resident memory grew by \(growth >> 20) MiB")
        try await performer.openDescriptorsGauge.wait { $0 == 0 }
    }
}
