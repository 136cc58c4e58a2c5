import Foundation

/// The real corpora, read from `Benchmarks/Corpus/` (see its README for their source), beside the generated payloads.
///
/// The files are read once, when the benchmarks are registered; a missing file stops the run with its path.
enum RealCorpus {
    /// `Benchmarks/Corpus/`, found from this file's place in the package.
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    static let twitter = read("twitter.json")
    static let catalog = read("citm_catalog.json")
    static let canada = read("canada.json")

    private static func read(_ name: String) -> Data {
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else {
            fatalError("cannot read the corpus file \(url.path)")
        }
        return data
    }
}
