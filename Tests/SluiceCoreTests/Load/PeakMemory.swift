import Foundation

/// The peak of the process's resident memory, as the kernel counts it: `VmHWM` in `/proc/self/status`, reset to the
/// current size by writing `5` to `/proc/self/clear_refs` (Linux 4.0 and later).
///
/// It catches what a reading of resident memory after the work misses: memory held for a moment and given back.
/// It is the whole process's, so the tests that read it are in the soak's serialized suite.
enum PeakMemory {
    /// The peak of resident memory since the last reset, and the current resident memory, in bytes.
    static func peakAndCurrent() -> (peak: Int, current: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func bytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else {
                return nil
            }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 << 10 }
        }
        guard let peak = bytes("VmHWM"), let current = bytes("VmRSS") else { return nil }
        return (peak, current)
    }

    /// Resets the peak of resident memory to the current value; `false` where the kernel does not allow it, and
    /// under a sanitizer, whose shadow memory and quarantine of freed blocks the kernel counts in the peak (a bomb
    /// the plain build decodes 21 MiB above the start peaked 209 MiB above it under the thread sanitizer).
    static func resetPeak() -> Bool {
        guard SoakTests.sanitizer == nil else { return false }
        return (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// Runs `work` and returns how far the peak of resident memory rose above the size before it; `nil` where the
    /// peak is not measured (see ``resetPeak()``).
    static func growth(during work: () -> Void) -> Int? {
        guard resetPeak(), let before = peakAndCurrent() else {
            work()
            return nil
        }
        work()
        guard let after = peakAndCurrent() else { return nil }
        return after.peak - before.current
    }

    /// Runs `work` and returns how far the peak of resident memory rose above the size before it; `nil` where the
    /// peak is not measured (see ``resetPeak()``).
    static func growthAwaiting(_ work: () async -> Void) async -> Int? {
        guard resetPeak(), let before = peakAndCurrent() else {
            await work()
            return nil
        }
        await work()
        guard let after = peakAndCurrent() else { return nil }
        return after.peak - before.current
    }
}
