import Foundation
import TestSupport
import Testing

@testable import SluiceTransport

/// A body compressed with one coding, as a test names it.
struct EncodedSample: Sendable, CustomTestStringConvertible {
    /// The coding as `Content-Encoding` names it.
    var coding: String
    /// What the test calls it: the coding, or `deflate (raw)`.
    var name: String
    /// Compresses bytes, or returns `nil` where the encoder is missing.
    var encode: @Sendable (Data) -> Data?

    var testDescription: String { name }

    static let all: [EncodedSample] = [
        EncodedSample(coding: "gzip", name: "gzip", encode: TestCompressor.gzip),
        EncodedSample(coding: "deflate", name: "deflate", encode: { TestCompressor.zlib($0) }),
        EncodedSample(coding: "deflate", name: "deflate (raw)", encode: TestCompressor.rawDeflate),
        EncodedSample(coding: "br", name: "br", encode: { TestCompressor.brotli($0) }),
        EncodedSample(coding: "zstd", name: "zstd", encode: { TestCompressor.zstd($0) }),
    ]

    /// The body compressed, or a failure naming the missing encoder.
    func encoded(_ data: Data) throws -> Data {
        try #require(encode(data), "no \(name) encoder on this machine")
    }
}

/// Text of some length that compresses as prose does.
func sampleText(bytes: Int) -> Data {
    let words = ["stream", "socket", "buffer", "header", "request", "status", "chunk", "frame", "pipeline", "byte"]
    var generator = SplitMix64(seed: 0xC0DE_C0DE)
    var text = ""
    while text.utf8.count < bytes {
        let index = Int(generator.next() % 1_000)
        text += words[index % words.count] + (index % 13 == 0 ? ".\n" : " ")
    }
    return Data(text.utf8.prefix(bytes))
}

/// Each decoder on its own, over bytes: whole, split at every boundary, corrupt, cut short, and past its limits.
@Suite struct ContentDecoderTests {
    /// Decodes a body fed in the given pieces, then checks its end.
    func decode(
        _ pieces: [Data],
        codings: String,
        maximumSize: Int? = nil,
        maximumRatio: Int? = nil
    ) throws -> Data {
        let list = try #require(ContentCoding.applied(in: codings), "\(codings) is not decoded here")
        let decoder = try ContentDecoder(
            codings: list,
            limits: ContentDecoding(maximumSize: maximumSize, maximumRatio: maximumRatio)
        )
        var decoded = Data()
        for piece in pieces {
            decoder.feed(piece)
            while let chunk = try decoder.next() {
                #expect(chunk.count <= ContentDecoder.chunkSize)
                decoded.append(chunk)
            }
        }
        try decoder.finish()
        return decoded
    }

    @Test(arguments: EncodedSample.all)
    func decodesAWholeBody(_ sample: EncodedSample) throws {
        let body = sampleText(bytes: 300_000)
        let encoded = try sample.encoded(body)
        #expect(try decode([encoded], codings: sample.coding) == body)
    }

    @Test(arguments: EncodedSample.all)
    func decodesABodySplitAtEveryByteBoundary(_ sample: EncodedSample) throws {
        let body = sampleText(bytes: 2_000)
        let encoded = try sample.encoded(body)
        for split in 0...encoded.count {
            let pieces = [Data(encoded.prefix(split)), Data(encoded.dropFirst(split))]
            #expect(try decode(pieces, codings: sample.coding) == body, "split at \(split)")
        }
        let bytes = encoded.map { Data([$0]) }
        #expect(try decode(bytes, codings: sample.coding) == body, "a byte at a time")
    }

    @Test(arguments: EncodedSample.all)
    func aBodyCutShortFailsNamingTheCodingAndTheBytes(_ sample: EncodedSample) throws {
        let body = sampleText(bytes: 20_000)
        let encoded = try sample.encoded(body)
        let cut = Data(encoded.prefix(encoded.count / 2))
        let error = #expect(throws: SluiceError.self) { try decode([cut], codings: sample.coding) }
        let decoded = try #require(error?.message.firstMatch(of: /and (\d+) decoded/)?.1)
        #expect(
            error?.message
                == "the response body's \(sample.coding) coding ends early: the body ended after \(cut.count) bytes received and \(decoded) decoded, before the end of its \(sample.coding) stream"
        )
    }

    @Test(arguments: EncodedSample.all)
    func bytesAfterTheEndOfTheStreamFail(_ sample: EncodedSample) throws {
        guard sample.coding != "zstd", sample.coding != "gzip" else { return }  // frames and members may follow
        let body = sampleText(bytes: 1_000)
        let encoded = try sample.encoded(body)
        let error = #expect(throws: SluiceError.self) {
            try decode([encoded + Data("junk".utf8)], codings: sample.coding)
        }
        #expect(
            error?.message
                == "the response body's \(sample.coding) coding is corrupt at byte \(encoded.count) of the body as received: bytes follow the end of the stream (\(encoded.count) bytes received, \(body.count) decoded)"
        )
    }

    @Test func aCorruptGzipBodyFailsNamingWhere() throws {
        var encoded = try EncodedSample.all[0].encoded(sampleText(bytes: 1_000))
        encoded[1] = 0x8C
        let error = #expect(throws: SluiceError.self) { try decode([encoded], codings: "gzip") }
        #expect(
            error?.message
                == "the response body's gzip coding is corrupt at byte 2 of the body as received: incorrect header check (2 bytes received, 0 decoded)"
        )
        #expect((error?.underlyingError as? URLError)?.code == .cannotDecodeContentData)
    }

    static let garbage: [(coding: String, message: String)] = [
        ("gzip", "corrupt at byte 2 of the body as received: incorrect header check (2 bytes received, 0 decoded)"),
        ("deflate", "corrupt at byte 1 of the body as received: invalid block type (1 bytes received, 0 decoded)"),
        (
            "br",
            "corrupt at byte 1 of the body as received: invalid brotli stream (PADDING_2) (1 bytes received, 0 decoded)"
        ),
        (
            "zstd",
            "corrupt at byte 0 of the body as received: a frame starts with the magic number 0xFFFFFFFF, not one of "
                + "RFC 8878's (0 bytes received, 0 decoded)"
        ),
    ]

    @Test(arguments: garbage)
    func garbageFailsAsCorrupt(_ coding: String, _ message: String) throws {
        let garbage = Data(repeating: 0xFF, count: 64)
        let error = #expect(throws: SluiceError.self) { try decode([garbage], codings: coding) }
        #expect(error?.message == "the response body's \(coding) coding is \(message)")
    }

    @Test(arguments: EncodedSample.all)
    func aBombPastTheRatioFails(_ sample: EncodedSample) throws {
        let zeros = Data(count: 8 << 20)
        let encoded = try sample.encoded(zeros)
        let error = #expect(throws: SluiceError.self) {
            try decode([encoded], codings: sample.coding, maximumRatio: 100)
        }
        let message = try #require(error?.message)
        let numbers = try #require(message.firstMatch(of: /: (\d+) bytes decoded from (\d+) bytes received;/))
        let (decoded, received) = (try #require(Int(numbers.1)), try #require(Int(numbers.2)))
        #expect(decoded > 100 * received && decoded > ContentDecoder.ratioFloor)
        #expect(decoded <= 100 * received + 2 * ContentDecoder.chunkSize + ContentDecoder.ratioFloor)
        #expect(
            message
                == "the response body's \(sample.coding) coding expands more than 100 times, a likely decompression bomb: \(decoded) bytes decoded from \(received) bytes received; the bound is the performer's maximumDecompressionRatio"
        )
    }

    @Test func aSmallBodyIsNeverRefusedForItsRatio() throws {
        let zeros = Data(count: ContentDecoder.ratioFloor)
        let encoded = try #require(TestCompressor.gzip(zeros))
        #expect(try decode([encoded], codings: "gzip", maximumRatio: 2) == zeros)
    }

    @Test func aBodyPastTheSizeLimitFails() throws {
        let body = sampleText(bytes: 300_000)
        let encoded = try #require(TestCompressor.gzip(body))
        let error = #expect(throws: SluiceError.self) {
            try decode([encoded], codings: "gzip", maximumSize: 100_000)
        }
        let received = try #require(error?.message.firstMatch(of: /from (\d+) bytes received/)?.1)
        #expect(
            error?.message
                == "the response body is more than 100000 bytes once its gzip coding is decoded (from \(received) bytes received), more than the limit of 100000 bytes"
        )
    }

    @Test func stackedCodingsAreUndoneInReverseOrder() throws {
        let body = sampleText(bytes: 50_000)
        let gzipped = try #require(TestCompressor.gzip(body))
        let both = try #require(TestCompressor.brotli(gzipped))
        #expect(try decode([both], codings: "gzip, br") == body)
        let halves = [Data(both.prefix(both.count / 2)), Data(both.dropFirst(both.count / 2))]
        #expect(try decode(halves, codings: "gzip,br") == body)
    }

    @Test func moreThanThreeStackedCodingsFail() throws {
        let error = #expect(throws: SluiceError.self) {
            try decode([Data()], codings: "gzip, gzip, gzip, gzip")
        }
        #expect(
            error?.message
                == "the response body has 4 content codings (gzip, gzip, gzip, gzip), more than the 3 the transport decodes"
        )
    }

    @Test func severalGzipMembersDecodeOneAfterAnother() throws {
        let first = sampleText(bytes: 3_000)
        let second = Data("and a second member".utf8)
        let encoded = try #require(TestCompressor.gzip(first)) + (try #require(TestCompressor.gzip(second)))
        #expect(try decode([encoded], codings: "gzip") == first + second)
    }

    @Test func severalZstdFramesDecodeOneAfterAnother() throws {
        let first = sampleText(bytes: 3_000)
        let second = Data("and a second frame".utf8)
        let encoded = try #require(TestCompressor.zstd(first)) + (try #require(TestCompressor.zstd(second)))
        #expect(try decode([encoded], codings: "zstd") == first + second)
    }

    /// Frames one after another, and a skippable frame (RFC 8878, section 3.1.2) before them, decode however the
    /// network cuts them: each frame's magic number is checked as its first four bytes come.
    @Test func zstdFramesDecodeFedOneByteAtATime() throws {
        let first = sampleText(bytes: 3_000)
        let second = Data("and a second frame".utf8)
        let skippable = Data([0x5A, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3])
        let encoded =
            skippable + (try #require(TestCompressor.zstd(first))) + (try #require(TestCompressor.zstd(second)))
        #expect(try decode(encoded.map { Data([$0]) }, codings: "zstd") == first + second)
        #expect(try decode([encoded], codings: "zstd") == first + second)
    }

    /// A frame of a format before RFC 8878 (here version 0.7's magic number, `0xFD2FB527`) fails whole and cut alike:
    /// libzstd decodes one whose magic number comes in one call and refuses it in pieces, which a fuzzer found.
    @Test func aLegacyZstdFrameFailsHoweverItIsCut() throws {
        let legacy = Data([0x27, 0xB5, 0x2F, 0xFD, 0x00, 0x78, 0xDA, 0x00, 0x00])
        let expected =
            "the response body's zstd coding is corrupt at byte 0 of the body as received: a frame starts with the "
            + "magic number 0xFD2FB527, not one of RFC 8878's"
        for pieces in [[legacy], legacy.map { Data([$0]) }] {
            let error = #expect(throws: SluiceError.self) { try decode(pieces, codings: "zstd") }
            #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "")")
        }
    }

    /// Fewer than four bytes where a frame would start, alone or after a whole frame, are a body cut short: the codec
    /// waits for the rest of the magic number, and the body's end says what is missing, counting those bytes.
    @Test(arguments: [(false, 1), (false, 3), (true, 2)])
    func aFewBytesWhereAZstdFrameWouldStartFailAsCutShort(_ afterAFrame: Bool, _ count: Int) throws {
        let frame = afterAFrame ? try #require(TestCompressor.zstd(Data("one frame".utf8))) : Data()
        let encoded = frame + Data([0x28, 0xB5, 0x2F].prefix(count))
        let decoded = afterAFrame ? "one frame".utf8.count : 0
        let expected =
            "the response body's zstd coding ends early: the body ended after \(encoded.count) bytes received and "
            + "\(decoded) decoded, before the end of its zstd stream"
        for pieces in [[encoded], encoded.map { Data([$0]) }] {
            let error = #expect(throws: SluiceError.self) { try decode(pieces, codings: "zstd") }
            #expect(error?.message == expected)
        }
    }

    @Test(arguments: ["gzip", "deflate", "br", "zstd", "gzip, br"])
    func anEmptyBodyDecodesToNothing(_ coding: String) throws {
        #expect(try decode([], codings: coding).isEmpty)
    }

    @Test func aZstdFrameNeedingMoreThanAnEightMebibyteWindowFails() throws {
        let body = Data((0..<(12 << 20)).map { UInt8(truncatingIfNeeded: ($0 >> 20) &* 7) })
        let encoded = try #require(TestCompressor.zstd(body, level: 22))
        let error = #expect(throws: SluiceError.self) { try decode([encoded], codings: "zstd") }
        #expect(
            error?.message.contains("Frame requires too much memory for decoding") == true,
            "\(error?.message ?? "")"
        )
    }

    @Test func contentEncodingListsAreRead() {
        #expect(ContentCoding.applied(in: "gzip") == [.gzip])
        #expect(ContentCoding.applied(in: "x-gzip") == [.gzip])
        #expect(ContentCoding.applied(in: " GZIP , br ") == [.gzip, .brotli])
        #expect(ContentCoding.applied(in: "identity, zstd") == [.zstd])
        #expect(ContentCoding.applied(in: "identity") == nil)
        #expect(ContentCoding.applied(in: "") == nil)
        #expect(ContentCoding.applied(in: "compress") == nil)
        #expect(ContentCoding.applied(in: "gzip, x-custom") == nil)
    }

    @Test func everyCodingIsDecodedWhereItsLibraryLoads() {
        #expect(ContentCoding.available == ContentCoding.all)
        #expect(ContentCoding.acceptEncoding == "gzip, deflate, br, zstd")
    }

    @Test func aMissingLibraryIsNamedWithTheLoadersWords() {
        let missing = SystemLibrary.open("libsluice-absent.so.9", as: "absent")
        guard case .failure(let error) = missing else {
            Issue.record("a library that does not exist was opened")
            return
        }
        #expect(error.description.hasPrefix("the system's absent could not be loaded: libsluice-absent.so.9: "))
    }
}
