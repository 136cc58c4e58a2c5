import Foundation
import HTTPFuzzSupport
import Testing

/// The invariants the network parsers' fuzzer checks, on hand-written inputs cut at every byte and on the inputs the
/// fuzzer found interesting in its runs, so that a regression fails the tests and not only the fuzzer.
@Suite struct HTTPFuzzCorpusTests {
    /// The inputs a target's fuzzer kept, one per line in base64, in `Resources/<target>.txt`.
    static func corpus(of target: FuzzTarget) -> [Data] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/\(target.rawValue).txt")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
    }

    /// Checks a payload whole, cut at each offset, and a byte at a time, with each of the target's flags.
    static func violations(of target: FuzzTarget, _ payload: String, flags: [UInt8] = [0]) async -> [String] {
        let bytes = Array(payload.utf8)
        var inputs: [ChunkedInput] = []
        for flag in flags {
            inputs.append(ChunkedInput(payload: bytes, flags: flag, cuts: bytes.isEmpty ? [] : Array(1..<bytes.count)))
            inputs += (0...bytes.count).map { ChunkedInput(payload: bytes, flags: flag, cuts: [$0]) }
        }
        var violations: [String] = []
        for input in inputs {
            if let violation = await target.violation(in: input) {
                violations.append("flags \(input.flags), cuts \(input.cuts): \(violation)")
            }
        }
        return violations
    }

    /// How many inputs each target's file holds, so that a file cut short fails.
    static let corpusSizes: [FuzzTarget: Int] = [
        .webSocketFrames: 328,
        .responseParser: 667, .lines: 247, .serverSentEvents: 596, .multipart: 540, .requestValidation: 741,
        .contentDecoder: 26, .http2Frames: 206,
    ]

    @Test(arguments: FuzzTarget.allCases)
    func everyInputTheFuzzerKeptKeepsTheInvariants(_ target: FuzzTarget) async {
        let corpus = Self.corpus(of: target)
        #expect(corpus.count == Self.corpusSizes[target])
        for (index, input) in corpus.enumerated() {
            let violation = await target.violation(in: input)
            #expect(violation == nil, "input \(index), \(input.base64EncodedString()): \(violation ?? "")")
        }
    }

    /// The inputs that broke an invariant, each fixed since: a form part whose content starts with the delimiter,
    /// written as it was, and a header line of one letter and 400 accents, quoted whole in the parser's error.
    @Test func theInputsThatBrokeAnInvariantStayFixed() async throws {
        let form = try #require(Data(base64Encoded: "j5Df/5L//y0tQg=="))
        #expect(await FuzzTarget.multipart.violation(in: form) == nil)
        // A content type holding U+0091, a C1 control the encoder refuses since the header check refuses the C1 set,
        // which the multipart oracle still took for a fault-free part.
        let c1 = try #require(Data(base64Encoded: "gG7//3RleHQvwpH/eA=="))
        #expect(await FuzzTarget.multipart.violation(in: c1) == nil)
        // A field name of kilobytes with a control character in it, quoted whole in the validation's error.
        let name = "GET\u{FF}a\u{FF}" + String(repeating: "n", count: 2_000) + "\u{1A}\u{FF}1"
        #expect(await FuzzTarget.requestValidation.violation(in: Self.input(name)) == nil)
        let line = "HTTP/1.1 200 OK\r\nX" + String(repeating: "\u{301}", count: 400) + "\r\n\r\n"
        #expect(await FuzzTarget.responseParser.violation(in: ChunkedInput(payload: Array(line.utf8))) == nil)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 204",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n5;x=y\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nto the close",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",
        "HTTP/1.1 200 OK\r\n folded\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
        "",
    ])
    func responsesKeepTheInvariants(_ response: String) async {
        #expect(await Self.violations(of: .responseParser, response, flags: [0, 1, 2, 3]) == [])
    }

    @Test(arguments: ["", "one", "one\r\ntwo\rthree\n\r\n", "\r", "\r\r\n\n", String(repeating: "x", count: 65) + "\n"])
    func linesKeepTheInvariants(_ text: String) async {
        #expect(await Self.violations(of: .lines, text) == [])
    }

    @Test(arguments: [
        "\u{FEFF}: hi\r\nretry: 250\nid: 1\revent: add\r\ndata: a\r\ndata:  b\n\ndata: tail",
        "data\n\ndata\ndata\n\nid: x\u{0}y\ndata: 1\n\n",
        "event: a\nevent: b\ndata: 1\nretry: 99999999999999999999\n\n",
        "data: " + String(repeating: "x", count: 130) + "\n\n",
    ])
    func eventStreamsKeepTheInvariants(_ stream: String) async {
        #expect(await Self.violations(of: .serverSentEvents, stream) == [])
    }

    @Test(arguments: [
        "caption\u{FF}\u{FF}\u{FF}At the beach\u{FF}photo\u{FF}a \"b\".jpg\u{FF}image/jpeg\u{FF}\r\nbytes\r\n",
        "na%22me\"\r\n\u{FF}\u{FF}text/plain\r\nX-Evil: 1\u{FF}x",
        "caption\u{FF}\u{FF}\u{FF}\r\n--B\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\ntrue",
        "\u{FF}\u{FF}\u{FF}",
    ])
    func formsKeepTheInvariants(_ fields: String) async {
        #expect(await FuzzTarget.multipart.violation(in: Self.input(fields)) == nil)
    }

    /// An input of fields separated by 0xFF, which is not UTF-8: the text's U+00FF is written as that one byte, and
    /// every other character below U+0100 as its own byte too.
    static func input(_ fields: String, flags: UInt8 = 0) -> ChunkedInput {
        ChunkedInput(payload: fields.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }, flags: flags)
    }

    @Test(arguments: [
        "GET\u{FF}users?id=1\u{FF}Accept\u{FF}application/json",
        "GET /admin HTTP/1.1\r\nX: 1\u{FF}a",
        "POST\u{FF}up\u{FF}Content-Length\u{FF}5\u{FF}hello",
        "POST\u{FF}up\u{FF}Content-Length\u{FF}6\u{FF}hello",
        "POST\u{FF}up\u{FF}Transfer-Encoding\u{FF}chunked\u{FF}hello",
        "GET\u{FF}a\u{FF}X-A\u{FF}1\r\nX-Injected: 2",
        "GET\u{FF}a\u{FF}X A\u{FF}1",
        "GET\u{FF}a\u{FF}X-A\u{FF}caf\u{E9}\t\u{85}",
        "\u{FF}a",
        // Fields HTTP/2 drops or keeps (RFC 9113 section 8.2.2).
        "GET\u{FF}a\u{FF}Connection\u{FF}close\u{FF}TE\u{FF}gzip\u{FF}X-Mixed-Case\u{FF}V",
        "GET\u{FF}a\u{FF}TE\u{FF} trailers\u{FF}Upgrade\u{FF}h2c\u{FF}Keep-Alive\u{FF}5",
        "GET\u{FF}a\u{FF}Proxy-Connection\u{FF}keep-alive\u{FF}User-Agent\u{FF}mine",
        "GET\u{FF}a\u{FF}Host\u{FF}example.com",
    ])
    func requestsKeepTheInvariants(_ fields: String) async {
        for flags: UInt8 in [0, 1, 3] {
            #expect(await FuzzTarget.requestValidation.violation(in: Self.input(fields, flags: flags)) == nil)
        }
    }
}
