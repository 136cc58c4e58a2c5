// The program of each fuzzer, around the check it makes of one input. Built with -DFUZZING and
// -sanitize=fuzzer (as CI builds the fuzzers), it hands libFuzzer the command line and the check; built without
// (as `swift build` does), it replays the input files named on its command line.
import Foundation

/// The check the running fuzzer makes, set once before the driver starts: libFuzzer's callback is a C function and
/// captures nothing.
nonisolated(unsafe) private var installedCheck: ((UnsafeRawBufferPointer) -> Void)?

#if FUZZING
// libFuzzer's driver, from the runtime that -sanitize=fuzzer links in. SwiftPM gives the executable its own `main`,
// so the program starts there and hands libFuzzer the command line and the function to call for every input.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

/// Runs a fuzzer: every input libFuzzer makes, or every file named on the command line, goes through `check`, which
/// stops the program (`fatalError`) with the invariant an input broke, so that the fuzzer keeps that input.
///
/// - Parameter check: Checks one input.
/// - Returns: Never: the program exits with libFuzzer's status, or once the files are replayed.
package func runFuzzer(_ check: @escaping (UnsafeRawBufferPointer) -> Void) -> Never {
    installedCheck = check
    #if FUZZING
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    let status = runFuzzerDriver(&argc, &argv) { start, count in
        installedCheck?(UnsafeRawBufferPointer(start: start, count: count))
        return 0
    }
    exit(status)
    #else
    for path in CommandLine.arguments.dropFirst() {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes(check)
            print("ok: \(path)")
        } catch {
            FileHandle.standardError.write(Data("cannot read \(path): \(error)\n".utf8))
            exit(1)
        }
    }
    exit(0)
    #endif
}
