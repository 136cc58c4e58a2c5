import Foundation

/// What one transport did for one operation at one concurrency: requests per second and CPU per request.
struct Throughput {
    /// The requests completed in the measured time.
    var requests: Int
    /// The wall time measured, in seconds.
    var seconds: Double
    /// The process's user and system CPU time in that time, in seconds.
    var cpuSeconds: Double

    /// Requests completed per second.
    var requestsPerSecond: Double { Double(requests) / seconds }
    /// CPU time per request, in microseconds.
    var cpuMicrosecondsPerRequest: Double { cpuSeconds / Double(max(requests, 1)) * 1_000_000 }
}

/// The process's resource usage so far.
private func selfUsage() -> rusage {
    var usage = rusage()
    // Glibc imports `RUSAGE_SELF` as an enum case, where Darwin has an `Int32`.
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// The process's user and system CPU time so far, in seconds, as `getrusage` reports it.
func cpuSeconds() -> Double {
    let usage = selfUsage()
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The process's peak resident memory so far, in bytes: `VmHWM` in `/proc/self/status` where there is one, since
/// Linux keeps `getrusage`'s `ru_maxrss` across `exec` (a child would report its parent's peak), and `ru_maxrss`
/// elsewhere.
func peakResidentBytes() -> Int {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    {
        return kibibytes * 1024
    }
    return selfUsage().ru_maxrss
}

/// Runs `operation` from `concurrency` tasks at once, each starting its next call when its last returns: first for
/// `warmUp` (connections open, caches fill), then for `duration`, counting the calls that complete and the CPU time
/// the process spends.
///
/// - Throws: What `operation` throws.
func measure(
    concurrency: Int,
    warmUp: Duration,
    duration: Duration,
    _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Throughput {
    _ = try await run(concurrency: concurrency, for: warmUp, operation)
    let clock = ContinuousClock()
    let cpuBefore = cpuSeconds()
    let start = clock.now
    let requests = try await run(concurrency: concurrency, for: duration, operation)
    let elapsed = start.duration(to: clock.now)
    let cpu = cpuSeconds() - cpuBefore
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Throughput(requests: requests, seconds: seconds, cpuSeconds: cpu)
}

/// Calls `operation` from `concurrency` tasks until `duration` has passed, and returns how many calls completed.
private func run(
    concurrency: Int,
    for duration: Duration,
    _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Int {
    let deadline = ContinuousClock.now.advanced(by: duration)
    return try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var completed = 0
                while ContinuousClock.now < deadline {
                    try await operation()
                    completed += 1
                }
                return completed
            }
        }
        return try await group.reduce(0, +)
    }
}
