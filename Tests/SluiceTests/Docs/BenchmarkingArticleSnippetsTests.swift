// The "Benchmarking your own stages" article copies its snippets from the stage benchmark template and the benchmarks
// manifest, which the benchmarks package compiles; this checks that each snippet is still there, verbatim.
import Foundation
import Testing

@Suite struct BenchmarkingArticleSnippetsTests {
    /// The repository's root, four folders above this file.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The Swift code blocks of a Markdown text, without their fences.
    private static func swiftBlocks(in markdown: String) -> [String] {
        markdown.matches(of: /```swift\n(?<code>(?:.*\n)*?)```/).map { String($0.output.code) }
    }

    @Test func everySnippetIsInTheTemplateOrTheManifest() throws {
        let article = try Self.read("Sources/Sluice/Sluice.docc/BenchmarkingYourStages.md")
        let template = try Self.read("Benchmarks/Benchmarks/StageBenchmarkTemplate/StageBenchmarks.swift")
        let manifest = try Self.read("Benchmarks/Package.swift")
        let snippets = Self.swiftBlocks(in: article)
        #expect(snippets.count == 5)
        for snippet in snippets {
            #expect(template.contains(snippet) || manifest.contains(snippet), "not copied verbatim:\n\(snippet)")
        }
    }
}
