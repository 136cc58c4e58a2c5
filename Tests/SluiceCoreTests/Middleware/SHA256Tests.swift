import ClientFixtures
import SluiceCore
import TestSupport
import Testing

/// The digest and HMAC the request-signing example uses, against the standard test vectors.
@Suite struct SHA256Tests {
    @Test(arguments: [
        // FIPS 180-2, appendix B.1 and B.2, and the empty message.
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ])
    func hashesTheFIPSVectors(_ message: String, _ digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).hexadecimal == digest)
    }

    @Test func hashesAMillionAsInPieces() async throws {
        // FIPS 180-2, appendix B.3, fed in uneven pieces across block boundaries; seconds of work under a sanitizer,
        // so not on the cooperative pool.
        let digest = await offThePool {
            var hasher = SHA256()
            var left = 1_000_000
            var piece = 1
            while left > 0 {
                let count = min(piece, left)
                hasher.update(repeatElement(UInt8(ascii: "a"), count: count))
                left -= count
                piece = piece % 97 + 13
            }
            return hasher.finalize().hexadecimal
        }
        #expect(digest == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        // RFC 4231, test cases 1, 2, 3, 4, 6 and 7.
        (
            String(repeating: "0b", count: 20), Array("Hi There".utf8).hexadecimal,
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8).hexadecimal, Array("what do ya want for nothing?".utf8).hexadecimal,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            String(repeating: "aa", count: 20), String(repeating: "dd", count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", String(repeating: "cd", count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            String(repeating: "aa", count: 131),
            Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8).hexadecimal,
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs "
                    + "to be hashed before being used by the HMAC algorithm.").utf8
            ).hexadecimal,
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func authenticatesTheRFC4231Vectors(_ key: String, _ message: String, _ code: String) throws {
        let computed = HMACSHA256.authenticationCode(for: try bytes(message), key: try bytes(key)).hexadecimal
        #expect(computed == code)
    }

    private func bytes(_ hexadecimal: String) throws -> [UInt8] {
        let digits = Array(hexadecimal.utf8)
        return try stride(from: 0, to: digits.count, by: 2).map { start in
            try #require(UInt8(String(decoding: digits[start..<start + 2], as: UTF8.self), radix: 16))
        }
    }
}
