// swift-tools-version: 6.1
// A libFuzzer target for Sluice's JSON deserializer, in a package of its own so that the library never builds it.
//
//     swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
//     .build/release/JSONFuzzer -max_total_time=600 Corpus
//
// Without -DFUZZING the target builds as a program that replays input files, for debugging a crash.
import PackageDescription

let package = Package(
    name: "SluiceFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Sluice", path: "..")],
    targets: [
        .executableTarget(
            name: "JSONFuzzer",
            dependencies: [.product(name: "Sluice", package: "Sluice")]
        )
    ]
)
