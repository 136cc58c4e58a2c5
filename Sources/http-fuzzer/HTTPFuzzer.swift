// A libFuzzer target for the parsers of bytes from the network, one at a time, named by SLUICE_FUZZ_TARGET
// (response-parser, lines, server-sent-events, multipart, request-validation, content-decoder or websocket-frames):
//
//     swift build -c release --product http-fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
//         -Xswiftc -use-ld=lld
//     SLUICE_FUZZ_TARGET=lines .build/release/http-fuzzer -max_total_time=600 -rss_limit_mb=2048 \
//         -malloc_limit_mb=64 -max_len=4096 -dict=Tests/SluiceCoreTests/Fuzzing/Resources/lines.dict CORPUS
//
// The parsers hold tight limits (see each target's invariants), so that no input of 4 KiB should allocate more than
// a little: a malloc past 64 MiB stops the run as a failure.
//
// Built without -DFUZZING (as `swift build` does), it replays the input files named on its command line.
import Dispatch
import Foundation
import FuzzDriver
import HTTPFuzzSupport

/// The target that SLUICE_FUZZ_TARGET names; the program stops when it names none.
let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["SLUICE_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set SLUICE_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

/// The outcome of one check, handed from the task that ran it to the thread that waits.
private final class Outcome: @unchecked Sendable {
    // Written by the task before it signals, read by the waiting thread after: the semaphore orders the two.
    var violation: String?
    let done = DispatchSemaphore(value: 0)
}

/// Checks one input, stopping the program with the broken invariant so that the fuzzer keeps the input.
///
/// The streaming targets read through async sequences; the fuzzer's callback is synchronous, so it waits for a task
/// that checks the input.
func check(_ bytes: [UInt8]) {
    let outcome = Outcome()
    let target = target
    Task {
        outcome.violation = await target.violation(in: bytes)
        outcome.done.signal()
    }
    outcome.done.wait()
    if let violation = outcome.violation {
        fatalError(violation)
    }
}

@main
enum Fuzz {
    static func main() {
        _ = target
        runFuzzer { bytes in check(Array(bytes)) }
    }
}
