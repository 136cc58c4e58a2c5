import Foundation
import Sluice

/// Parses one input with tight limits and checks what must hold for every input: an accepted document writes
/// back as JSON that parses to an equal document, and a rejected one has an error located inside the input.
func check(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    let deserializer = JSONDeserializer(maximumDepth: 64, maximumSize: 1 << 20, emptyBody: .reject)
    do {
        let document = try deserializer.document(from: data)
        let rewritten = try deserializer.document(from: document.jsonData)
        guard rewritten == document else {
            fatalError("a document does not survive writing and parsing again: \(document.jsonText)")
        }
        // Read every value, as a decoder would.
        _ = try? JSONDocumentDecoder().decode(JSON.self, from: document)
        _ = document.description
    } catch {
        guard error.offset >= 0, error.offset <= data.count, error.line >= 1, error.column >= 1 else {
            fatalError("an error is located outside the input: \(error)")
        }
        _ = error.description
    }
}

#if FUZZING
// libFuzzer's driver, from the runtime -sanitize=fuzzer links in. SwiftPM gives the executable its own `main`, so
// the program starts here and hands libFuzzer the command line and the function to call for every input.
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
/// A plain build replays the files named on the command line.
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
