// A libFuzzer target for Sluice's JSON deserializer:
//
//     swift build -c release --product json-fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
//         -Xswiftc -use-ld=lld
//     .build/release/json-fuzzer -max_total_time=600 -dict=Tests/SluiceJSONTests/Parsing/Resources/json.dict CORPUS
//
// Built without -DFUZZING (as `swift build` does), it replays the input files named on its command line.
import Foundation
import JSONFuzzSupport

/// Checks one input, stopping the program with the broken invariant so that the fuzzer keeps the input.
func check(_ bytes: UnsafeRawBufferPointer) {
    if let violation = JSONInvariants.violation(in: bytes) {
        fatalError(violation)
    }
}

#if FUZZING
// libFuzzer's driver, from the runtime that -sanitize=fuzzer links in. SwiftPM gives the executable its own `main`,
// so the program starts here and hands libFuzzer the command line and the function to call for every input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@main
enum Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = runFuzzerDriver(&argc, &argv) { start, count in
            check(UnsafeRawBufferPointer(start: start, count: count))
            return 0
        }
        exit(status)
    }
}
#else
/// Replays the files named on the command line.
@main
enum Replay {
    static func main() throws {
        for path in CommandLine.arguments.dropFirst() {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes(check)
            print("ok: \(path)")
        }
    }
}
#endif
