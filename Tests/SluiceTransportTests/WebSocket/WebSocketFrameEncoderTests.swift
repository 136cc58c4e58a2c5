import Foundation
import Testing

@testable import SluiceTransport

/// The client's frames: masked, with the shortest length form, and read back by unmasking.
@Suite struct WebSocketFrameEncoderTests {
    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536, 200_003])
    func framesUnmaskToThePayload(count: Int) {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var output: [UInt8] = []
        payload.withUnsafeBytes {
            WebSocketFrameEncoder.encode(.binary, payload: $0, maskKey: 0x1234_5678, into: &output)
        }
        #expect(output[0] == 0x82)
        #expect(output[1] & 0x80 == 0x80)
        let short = Int(output[1] & 0x7F)
        let lengthBytes = short == 127 ? 8 : short == 126 ? 2 : 0
        #expect(short == (count < 126 ? count : count <= 0xFFFF ? 126 : 127))
        let length = lengthBytes == 0 ? short : output[2..<2 + lengthBytes].reduce(0) { $0 << 8 | Int($1) }
        #expect(length == count)
        #expect(Array(output[2 + lengthBytes..<6 + lengthBytes]) == [0x12, 0x34, 0x56, 0x78])
        var body = Array(output[(6 + lengthBytes)...])
        if count > 0 {
            #expect(body != payload || payload.allSatisfy { $0 == 0 } == false)
        }
        body.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: 0x1234_5678) }
        #expect(body == payload)
    }

    @Test func controlFramesAndFragments() {
        var output: [UInt8] = []
        [UInt8]().withUnsafeBytes {
            WebSocketFrameEncoder.encode(.ping, payload: $0, maskKey: 0, into: &output)
            WebSocketFrameEncoder.encode(.text, payload: $0, fin: false, maskKey: 0, into: &output)
        }
        #expect(output == [0x89, 0x80, 0, 0, 0, 0, 0x01, 0x80, 0, 0, 0, 0])
    }

    @Test func acceptKeyOfRFC6455() {
        // The example of RFC 6455, section 1.3.
        #expect(WebSocketHandshake.accept(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(
            SHA1.digest([UInt8]()).map { String(format: "%02x", $0) }.joined()
                == "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        )
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000)
        #expect(
            SHA1.digest(million).map { String(format: "%02x", $0) }.joined()
                == "291e9a6c66994949b57ba5e650361e98fc36b1ba"
        )
    }
}
