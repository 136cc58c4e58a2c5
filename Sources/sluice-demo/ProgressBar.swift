import Foundation
import Sluice

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A progress bar in the terminal, redrawn in place; where the output is not a terminal, a line at each quarter.
final class ProgressBar {
    private let interactive = isatty(STDOUT_FILENO) != 0
    private var quarter = 0
    private var drawn = false

    func show(_ progress: TransferProgress) {
        let fraction = progress.fractionCompleted ?? 0
        let megabytes = String(format: "%.1f", Double(progress.bytesTransferred) / 1_048_576)
        if interactive {
            let filled = Int(fraction * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            Swift.print("\r   [\(bar)] \(Int(fraction * 100))% \(megabytes) MiB", terminator: "")
            fflush(nil)
            drawn = true
        } else if Int(fraction * 4) > quarter {
            quarter = Int(fraction * 4)
            Swift.print("   \(quarter * 25)% \(megabytes) MiB")
        }
    }

    func finish() {
        if drawn {
            Swift.print()
            drawn = false
        }
    }
}
