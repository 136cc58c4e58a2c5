// Timing a client: requests in a loop from a number of tasks for a fixed time, each request's duration on a
// `ContinuousClock`, and the process's CPU time over the same window.
import Foundation
import Sluice

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time a process has used, user and system together, in seconds.
///
/// - Parameter children: Whether to read the time of the waited-for children rather than the process's own.
/// - Returns: The CPU seconds.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
    #else
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The system's load average over the last minute, or `nan` when it cannot be read.
func loadAverage() -> Double {
    var loads = [0.0, 0.0, 0.0]
    return getloadavg(&loads, 3) > 0 ? loads[0] : .nan
}

/// What one measured phase produced.
struct PhaseResult: Sendable, Codable {
    /// The client measured.
    let name: String
    /// The number of tasks sending requests at once, or wrk's connections.
    let concurrency: Int
    /// The requests that completed as expected.
    let requests: Int
    /// The requests that failed or answered something unexpected.
    let errors: Int
    /// The first failure, if any.
    let firstError: String?
    /// The time from the first request to the last answer, in seconds.
    let seconds: Double
    /// Each request's duration in seconds, sorted.
    let latencies: [Double]
    /// The client's CPU time over the phase, in seconds.
    let cpu: Double
    /// The response body's size in bytes.
    let bodyBytes: Int
    /// Percentiles given by the measuring tool itself, when the latencies are not known one by one (wrk).
    let reportedPercentiles: [Double: Double]

    /// The completed requests per second.
    var requestsPerSecond: Double { Double(requests) / seconds }

    /// The body bytes received per second.
    var bytesPerSecond: Double { Double(requests * bodyBytes) / seconds }

    /// The client's CPU seconds per request.
    var cpuPerRequest: Double { requests > 0 ? cpu / Double(requests) : .nan }

    /// A latency percentile in seconds.
    ///
    /// - Parameter fraction: The percentile, 0.5 for the median.
    /// - Returns: The latency in seconds, `nan` with no request.
    func percentile(_ fraction: Double) -> Double {
        if let reported = reportedPercentiles[fraction] {
            return reported
        }
        guard !latencies.isEmpty else { return .nan }
        return latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]
    }
}

/// Stops the run when a phase takes far longer than it should, so that a client that hangs is reported and the
/// tool still ends.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var phase: String?
    private var deadline: ContinuousClock.Instant?
    private let onExpiry: @Sendable (String) -> Void

    /// Starts the watchdog's thread.
    ///
    /// - Parameter onExpiry: Called with the phase's name when one overruns; it is expected to end the process.
    init(onExpiry: @escaping @Sendable (String) -> Void) {
        self.onExpiry = onExpiry
        let thread = Thread { [self] in
            while true {
                usleep(200_000)
                lock.lock()
                let expired = deadline.map { ContinuousClock.now > $0 } ?? false
                let name = phase
                lock.unlock()
                if expired, let name {
                    onExpiry(name)
                }
            }
        }
        thread.start()
    }

    /// Watches a phase from now on.
    ///
    /// - Parameters:
    ///   - name: The phase's name, for the report.
    ///   - limit: The longest it may take.
    func begin(_ name: String, limit: Duration) {
        lock.lock()
        phase = name
        deadline = ContinuousClock.now + limit
        lock.unlock()
    }

    /// Stops watching.
    func end() {
        lock.lock()
        phase = nil
        deadline = nil
        lock.unlock()
    }
}

/// How long each phase runs.
struct Durations: Sendable {
    /// The time spent before measuring, discarded.
    let warmUp: Duration
    /// The time measured.
    let measured: Duration
}

/// Sends requests from `concurrency` tasks for a warm-up and then for the measured time, and times them.
///
/// - Parameters:
///   - name: The client's name.
///   - concurrency: The number of tasks sending at once, each one request after another.
///   - durations: The warm-up and measured times.
///   - bodyBytes: The size of the response body, for the throughput.
///   - expected: What every request must return: the body's size, or the count of what it decoded.
///   - onLoops: Whether each task runs on one of Sluice's event loops (`SocketRequestPerformer.loopExecutor()`,
///     where the platform has task executors) rather than on the cooperative pool.
///   - request: Sends one request and returns the size of what it received.
/// - Returns: The measured phase.
func measure(
    _ name: String,
    concurrency: Int,
    durations: Durations,
    bodyBytes: Int,
    expected: Int,
    onLoops: Bool = false,
    request: @escaping @Sendable () async throws -> Int
) async -> PhaseResult {
    _ = await loop(
        concurrency: concurrency,
        for: durations.warmUp,
        expected: expected,
        onLoops: onLoops,
        request: request
    )
    let clock = ContinuousClock()
    let cpuBefore = cpuSeconds()
    let start = clock.now
    let outcomes = await loop(
        concurrency: concurrency,
        for: durations.measured,
        expected: expected,
        onLoops: onLoops,
        request: request
    )
    let elapsed = start.duration(to: clock.now)
    let cpu = cpuSeconds() - cpuBefore
    let latencies = outcomes.flatMap(\.latencies).sorted()
    return PhaseResult(
        name: name,
        concurrency: concurrency,
        requests: latencies.count,
        errors: outcomes.reduce(0) { $0 + $1.errors },
        firstError: outcomes.lazy.compactMap(\.firstError).first,
        seconds: elapsed.seconds,
        latencies: latencies,
        cpu: cpu,
        bodyBytes: bodyBytes,
        reportedPercentiles: [:]
    )
}

/// What one task of a phase saw.
private struct Outcome: Sendable {
    var latencies: [Double] = []
    var errors = 0
    var firstError: String?
}

/// Runs the tasks until the time is up; a task stops early after a hundred failures.
private func loop(
    concurrency: Int,
    for duration: Duration,
    expected: Int,
    onLoops: Bool,
    request: @escaping @Sendable () async throws -> Int
) async -> [Outcome] {
    let clock = ContinuousClock()
    let end = clock.now + duration
    return await withTaskGroup(of: Outcome.self) { group in
        for _ in 0..<concurrency {
            let task: @Sendable () async -> Outcome = {
                var outcome = Outcome()
                outcome.latencies.reserveCapacity(1 << 16)
                while clock.now < end, outcome.errors < 100 {
                    let start = clock.now
                    do {
                        let received = try await request()
                        let time = start.duration(to: clock.now)
                        guard received == expected else {
                            outcome.errors += 1
                            outcome.firstError = outcome.firstError ?? "\(received) received, not \(expected)"
                            continue
                        }
                        outcome.latencies.append(time.seconds)
                    } catch {
                        outcome.errors += 1
                        outcome.firstError = outcome.firstError ?? "\(error)"
                    }
                }
                return outcome
            }
            if onLoops, #available(macOS 15.0, *) {
                group.addTask(executorPreference: SocketRequestPerformer.loopExecutor(), operation: task)
            } else {
                group.addTask(operation: task)
            }
        }
        var outcomes: [Outcome] = []
        for await outcome in group {
            outcomes.append(outcome)
        }
        return outcomes
    }
}

/// Runs wrk against a URL, a warm-up first, and reads its requests per second and latency percentiles.
///
/// - Parameters:
///   - wrk: The wrk executable.
///   - url: The URL to load.
///   - connections: wrk's connections.
///   - threads: wrk's threads.
///   - durations: The warm-up and measured times, rounded up to whole seconds as wrk takes them.
///   - bodyBytes: The size of the body, for the throughput.
/// - Returns: The measured phase; its CPU time is wrk's, and its latencies are wrk's percentiles.
/// - Throws: ``ServerError`` when wrk's output cannot be read.
func runWrk(
    _ wrk: URL,
    url: URL,
    connections: Int,
    threads: Int,
    durations: Durations,
    bodyBytes: Int
) throws -> PhaseResult {
    func arguments(_ duration: Duration) -> [String] {
        let seconds = max(1, Int(duration.seconds.rounded(.up)))
        return ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--latency", url.absoluteString]
    }
    _ = run(wrk, arguments(durations.warmUp))
    let cpuBefore = cpuSeconds(children: true)
    let measured = arguments(durations.measured)
    guard let output = run(wrk, measured) else { throw ServerError(description: "wrk did not start") }
    let cpu = cpuSeconds(children: true) - cpuBefore
    let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    func field(_ prefix: String) -> String? {
        lines.first { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
    }
    guard let rateText = field("Requests/sec:"), let rate = Double(rateText),
        let totalLine = lines.first(where: { $0.contains("requests in") }),
        let total = Int(totalLine.split(separator: " ").first ?? ""),
        let p50 = field("50%").flatMap(wrkSeconds), let p99 = field("99%").flatMap(wrkSeconds)
    else {
        throw ServerError(description: "wrk's output was not understood:\n\(output)")
    }
    let errors = field("Non-2xx or 3xx responses:").flatMap { Int($0) } ?? 0
    let socketErrors = lines.first { $0.hasPrefix("Socket errors:") }
    return PhaseResult(
        name: "wrk",
        concurrency: connections,
        requests: total,
        errors: errors,
        firstError: socketErrors,
        seconds: Double(total) / rate,
        latencies: [],
        cpu: cpu,
        bodyBytes: bodyBytes,
        reportedPercentiles: [0.5: p50, 0.99: p99]
    )
}

/// Runs h2load against a URL over HTTP/2 on one connection, a warm-up first, and reads its requests per second and
/// each request's time from its log.
///
/// The flags are `-c1 -m<concurrency> -t1 -D<time> --log-file=<file>`: one client (one connection) with as many
/// streams at once as the concurrency, on one thread, for the measured time; over TLS for an `https://` URL (ALPN
/// `h2`), by prior knowledge for an `http://` one.
///
/// - Parameters:
///   - h2load: The h2load executable.
///   - url: The URL to load.
///   - concurrency: The streams at once on the connection.
///   - durations: The warm-up and measured times.
///   - bodyBytes: The size of the body; the `DATA` bytes h2load counts must be those of the responses it completed,
///     or the phase has an error.
///   - log: Where h2load writes one line a request (start, status, microseconds); removed afterwards.
/// - Returns: The measured phase; its CPU time is h2load's.
/// - Throws: ``ServerError`` when h2load does not start or its output cannot be read.
func runH2load(
    _ h2load: URL,
    url: URL,
    concurrency: Int,
    durations: Durations,
    bodyBytes: Int,
    log: URL
) throws -> PhaseResult {
    func arguments(_ duration: Duration) -> [String] {
        let milliseconds = max(1, Int((duration.seconds * 1_000).rounded(.up)))
        return ["-c1", "-m\(concurrency)", "-t1", "-D\(milliseconds)ms", url.absoluteString]
    }
    _ = run(h2load, arguments(durations.warmUp))
    try? FileManager.default.removeItem(at: log)
    defer { try? FileManager.default.removeItem(at: log) }
    let cpuBefore = cpuSeconds(children: true)
    guard let output = run(h2load, arguments(durations.measured) + ["--log-file=\(log.path)"]) else {
        throw ServerError(description: "h2load did not start")
    }
    let cpu = cpuSeconds(children: true) - cpuBefore
    let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    // "requests: 31880 total, 31884 started, 31880 done, 31880 succeeded, 0 failed, 0 errored, 0 timeout"
    var counts: [String: Int] = [:]
    for item in lines.first(where: { $0.hasPrefix("requests:") })?.dropFirst(9).split(separator: ",") ?? [] {
        let words = item.split(separator: " ")
        if words.count == 2, let count = Int(words[0]) {
            counts[String(words[1])] = count
        }
    }
    // "finished in 2.00s, 15940.00 req/s, 17.38MB/s"
    let finished = lines.first { $0.hasPrefix("finished in") }?.split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
    }
    // "traffic: 34.75MB (36438889) total, 3.80MB (3985000) headers (space savings 36.55%), 30.40MB (31880000) data"
    let data = lines.first { $0.hasPrefix("traffic:") }?.split(separator: "(").last { $0.hasSuffix(") data") }
    guard let finished, finished.count >= 2, finished[1].hasSuffix(" req/s"),
        let rate = Double(finished[1].dropLast(6)), rate > 0,
        let succeeded = counts["succeeded"], let started = counts["started"],
        let failed = counts["failed"], let timedOut = counts["timeout"],
        let dataBytes = data.flatMap({ Int($0.dropLast(6)) })
    else {
        throw ServerError(description: "h2load's output was not understood:\n\(output)")
    }
    let logLines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
    let latencies = logLines.compactMap { line -> Double? in
        let columns = line.split(separator: "\t")
        guard columns.count == 3, columns[1] == "200" else { return nil }
        return Double(columns[2]).map { $0 / 1e6 }
    }
    // The responses under way when the time ran out have sent part of their bodies.
    let bodiesWhole = dataBytes >= succeeded * bodyBytes && dataBytes <= started * bodyBytes
    let errors = failed + timedOut + (bodiesWhole ? 0 : 1)
    return PhaseResult(
        name: "h2load",
        concurrency: concurrency,
        requests: succeeded,
        errors: errors,
        firstError: errors == 0
            ? nil : "\(failed) failed, \(timedOut) timed out, \(dataBytes) bytes of DATA for \(succeeded) responses",
        seconds: Double(succeeded) / rate,
        latencies: latencies.sorted(),
        cpu: cpu,
        bodyBytes: bodyBytes,
        reportedPercentiles: [:]
    )
}

/// Reads a wrk duration such as `85.00us`, `1.20ms` or `2.00s` as seconds.
private func wrkSeconds(_ text: String) -> Double? {
    let units: [(String, Double)] = [("us", 1e-6), ("ms", 1e-3), ("m", 60), ("s", 1)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        return Double(text.dropLast(suffix.count)).map { $0 * scale }
    }
    return nil
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
