// A generated OpenAPI client's requests per second and CPU per request through Sluice's transport, async-http-client's
// and URLSession's, against one local nginx, and the peak resident memory of a streamed upload and download of 1 GiB.
//
//     swift run -c release --package-path Integrations/SluiceOpenAPI sluice-openapi-bench [--seconds S] [--gib N]
//
// Every transport is measured in the same run, its figures given as ratios to async-http-client's. A large transfer
// runs in a child process of its own (`transfer TRANSPORT upload|download URL BYTES`), so that its peak memory is its
// own. Method and results: Benchmarks/README.md at the repository's root.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

/// The value after `name` on the command line, or `fallback`.
func option(_ name: String, _ fallback: Double) -> Double {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let value = Double(arguments[index + 1])
    else { return fallback }
    return value
}

do {
    if arguments.first == "transfer" {
        try await transferChild(Array(arguments.dropFirst()))
    } else {
        try await benchmark(seconds: option("--seconds", 3), gibibytes: option("--gib", 1))
    }
} catch {
    FileHandle.standardError.write(Data("sluice-openapi-bench: \(error)\n".utf8))
    exit(1)
}
