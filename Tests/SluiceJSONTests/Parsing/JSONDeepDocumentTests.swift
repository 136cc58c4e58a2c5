import Foundation
import SluiceJSON
import Testing

/// Documents nested far deeper than the default limit, parsed with a raised one: what works on a document works on
/// them too, without recursion running out of stack.
@Suite struct JSONDeepDocumentTests {
    /// The depth of the documents: far more than a thread's stack holds frames for.
    static let depth = 100_000

    /// The kinds of nesting: arrays in arrays, and objects in objects.
    enum Nesting: String, CaseIterable, Sendable {
        case arrays
        case objects

        /// A document nested `depth` deep around a leaf.
        func text(around leaf: String, depth: Int = JSONDeepDocumentTests.depth) -> String {
            switch self {
            case .arrays: String(repeating: "[", count: depth) + leaf + String(repeating: "]", count: depth)
            case .objects: String(repeating: #"{"a":"#, count: depth) + leaf + String(repeating: "}", count: depth)
            }
        }
    }

    private func parse(_ text: String) throws -> JSON {
        try JSONDeserializer(maximumDepth: Self.depth + 1).document(from: Data(text.utf8))
    }

    @Test(arguments: Nesting.allCases)
    func equalDeepDocumentsCompareEqual(_ nesting: Nesting) throws {
        let left = try parse(nesting.text(around: "1"))
        let right = try parse(nesting.text(around: "1.0"))
        #expect(left == right)
    }

    @Test(arguments: Nesting.allCases)
    func deepDocumentsDifferingAtTheBottomCompareUnequal(_ nesting: Nesting) throws {
        let left = try parse(nesting.text(around: "1"))
        let right = try parse(nesting.text(around: "2"))
        #expect(left != right)
        let shallower = try parse(nesting.text(around: "1", depth: Self.depth - 1))
        #expect(left != shallower)
    }

    @Test func deepArraysAndObjectsCompareUnequal() throws {
        #expect(try parse(Nesting.arrays.text(around: "1")) != parse(Nesting.objects.text(around: "1")))
    }

    @Test(arguments: Nesting.allCases)
    func deepDocumentsWriteTheirText(_ nesting: Nesting) throws {
        let text = nesting.text(around: "true")
        let document = try parse(text)
        #expect(document.jsonText == text)
        #expect(document.description == text)
        #expect(document.debugDescription == "JSON(\(text))")
    }
}
