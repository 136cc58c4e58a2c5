import Foundation
import JSONFuzzSupport
import Testing

/// The inputs the fuzzer found interesting in its runs (two crashes among them, fixed since), kept as a regression
/// test: every invariant the fuzzer checks must hold for each.
@Suite struct JSONFuzzCorpusTests {
    static let corpus: [Data] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Resources/JSONFuzzCorpus.txt")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { Data(base64Encoded: String($0)) }
    }()

    @Test func corpusIsPresent() {
        #expect(Self.corpus.count == 805)
    }

    @Test func everyInputKeepsTheInvariants() {
        for (index, input) in Self.corpus.enumerated() {
            let violation = input.withUnsafeBytes { JSONInvariants.violation(in: $0) }
            #expect(violation == nil, "input \(index), \(input.base64EncodedString()): \(violation ?? "")")
        }
    }

    @Test func theCrashTheFuzzerFoundStaysFixed() {
        let input = Data(#"{"":true,"":[1.2,{"b":null}],"c0$:trud":false}"#.utf8)
        #expect(input.withUnsafeBytes { JSONInvariants.violation(in: $0) } == nil)
    }
}
