import Foundation
import SluiceTransport
import TestSupport
import Testing

/// Sluice's HTTP/2 session fed bytes that are not HTTP/2, or not a server's: each is refused with an error that says
/// so, and nothing crashes.
@Suite(.enabled(if: (try? NGHTTP2.shared.get()) != nil, "the system's nghttp2 could not be loaded"))
struct HTTP2SessionTests {
    @Test func anHTTP1ResponseIsRefused() throws {
        let session = try HTTP2Session(library: try NGHTTP2.shared.get())
        _ = try session.output()
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        let error = #expect(throws: SluiceError.self) { try bytes.withUnsafeBytes { try session.receive($0) } }
        #expect(
            error?.message
                == "the server broke HTTP/2 (RFC 9113): Remote peer returned unexpected data while we expected SETTINGS frame. Perhaps, peer does not support HTTP/2 properly; the connection is closed"
        )
    }

    @Test func theClientSendsThePrefaceAndItsSettingsFirst() throws {
        let session = try HTTP2Session(library: try NGHTTP2.shared.get())
        let out = try session.output()
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        #expect(Array(out.prefix(preface.count)) == preface)
        // A SETTINGS frame (type 4) of three settings, six bytes each, on stream 0.
        #expect(Array(out[preface.count..<preface.count + 9]) == [0, 0, 18, 4, 0, 0, 0, 0, 0])
    }

    /// Random bytes after a valid SETTINGS frame: every outcome is events or an error, never a crash.
    @Test func randomFramesNeverCrash() throws {
        var random = SplitMix64(seed: 0x5eed_4812)
        for _ in 0..<2_000 {
            let session = try HTTP2Session(library: try NGHTTP2.shared.get())
            _ = try session.output()
            _ = try session.submitRequest([
                (":method", "GET"), (":scheme", "https"), (":authority", "example.com"), (":path", "/"),
            ])
            var bytes: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0]
            let count = Int.random(in: 0..<200, using: &random)
            bytes += (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? bytes.withUnsafeBytes { try session.receive($0) }
            _ = try? session.output()
        }
    }
}
