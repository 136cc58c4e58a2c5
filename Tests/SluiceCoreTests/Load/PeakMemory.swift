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

    /// Resets the peak of resident memory to the current value; `false` where the kernel does not allow it.
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// How far the peak of resident memory rose above the current size while `work` ran; `nil` where the kernel
    /// does not say.
    static func growth(during work: () -> Void) -> Int? {
        guard resetPeak(), let before = peakAndCurrent() else { return nil }
        work()
        guard let after = peakAndCurrent() else { return nil }
        return after.peak - before.current
    }

    /// How far the peak of resident memory rose above the current size while `work` ran; `nil` where the kernel
    /// does not say.
    static func growthAwaiting(_ work: () async -> Void) async -> Int? {
        guard resetPeak(), let before = peakAndCurrent() else { return nil }
        await work()
        guard let after = peakAndCurrent() else { return nil }
        return after.peak - before.current
    }
}
