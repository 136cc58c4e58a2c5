// The results as raw lines while the run goes on, and as Markdown tables at its end.
import Foundation

extension PhaseResult {
    /// The columns of ``rawLine(group:)``.
    static let rawHeader =
        "group | client | concurrency | requests | errors | seconds | req/s | p50 µs | p90 µs | p99 µs | max µs"
        + " | CPU s | CPU µs/req | MB/s"

    /// Every number of the phase on one line.
    ///
    /// - Parameter group: The file the phase loaded.
    /// - Returns: The line.
    func rawLine(group: String) -> String {
        let fields = [
            group, name, "\(concurrency)", "\(requests)", "\(errors)", format(seconds, 3),
            format(requestsPerSecond, 1), micro(percentile(0.5)), micro(percentile(0.9)), micro(percentile(0.99)),
            micro(latencies.last ?? .nan), format(cpu, 3), micro(cpuPerRequest), format(bytesPerSecond / 1e6, 1),
        ]
        return fields.joined(separator: " | ")
    }
}

/// The Markdown tables of a run.
struct Report {
    /// The `/1k.json` phases, wrk's among them.
    let small: [PhaseResult]
    /// The `/1k.json` phases over HTTPS.
    let https: [PhaseResult]
    /// The `/1k.json` phases through squid.
    let proxied: [PhaseResult]
    /// The `/users.json` phases through the HTTP cache.
    let cached: [PhaseResult]
    /// The `/large.bin` phases.
    let large: [PhaseResult]
    /// The `/users.json` phases.
    let decode: [PhaseResult]
    /// The size of the user list.
    let usersBytes: Int
    /// The warm-up and measured times.
    let durations: Durations
    /// nginx's worker processes.
    let nginxWorkers: Int
    /// The one-minute load average before and after the run.
    let loads: (start: Double, end: Double)

    /// The tables, with the machine they ran on.
    var markdown: String {
        var lines: [String] = []
        let cores = ProcessInfo.processInfo.activeProcessorCount
        lines.append(
            "Measured on \(cores) cores (\(ProcessInfo.processInfo.operatingSystemVersionString)), against nginx with "
                + "\(nginxWorkers) worker process\(nginxWorkers == 1 ? "" : "es") on loopback; "
                + "each row is \(durations.measured) after a "
                + "\(durations.warmUp) warm-up. CPU is the client process's user and system time per request; "
                + "nginx's is not included (wrk's row shows wrk's own)."
        )
        lines.append("")
        lines.append(
            String(
                format: "One-minute load average: %.2f before the run, %.2f after (the run keeps about %d cores busy).",
                loads.start,
                loads.end,
                min(cores, 3)
            )
        )
        lines.append("")
        lines.append("**`GET /1k.json`** (\(small.first?.bodyBytes ?? 0) bytes)")
        lines.append("")
        lines.append(
            "| Client | Concurrency | Requests/s | p50 | p99 | CPU/request | vs URLSession | vs async-http-client | vs wrk |"
        )
        lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
        for result in small {
            let session = small.first { $0.name == "URLSession" && $0.concurrency == result.concurrency }
            let wrk = small.first { $0.name == "wrk" && $0.concurrency == result.concurrency }
            lines.append(
                row([
                    displayName(result), "\(result.concurrency)", format(result.requestsPerSecond, 0),
                    duration(result.percentile(0.5)),
                    duration(result.percentile(0.99)), duration(result.cpuPerRequest),
                    ratio(result.requestsPerSecond, session?.requestsPerSecond),
                    ratio(result.requestsPerSecond, peer(of: result, in: small)?.requestsPerSecond),
                    ratio(result.requestsPerSecond, wrk?.requestsPerSecond),
                ])
            )
        }
        if !https.isEmpty {
            lines.append("")
            lines.append(
                "**`GET /1k.json` over HTTPS** (TLS 1.3, an EC P-256 certificate; vs the same client over HTTP)"
            )
            lines.append("")
            lines.append(
                "| Client | Concurrency | Requests/s | p50 | p99 | CPU/request | vs HTTP | vs async-http-client "
                    + "| CPU vs async-http-client | vs wrk |"
            )
            lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
            for result in https {
                let plain = small.first { $0.name == result.name && $0.concurrency == result.concurrency }
                let peer = peer(of: result, in: https)
                let wrk = https.first { $0.name == "wrk" && $0.concurrency == result.concurrency }
                lines.append(
                    row([
                        displayName(result), "\(result.concurrency)", format(result.requestsPerSecond, 0),
                        duration(result.percentile(0.5)), duration(result.percentile(0.99)),
                        duration(result.cpuPerRequest), ratio(result.requestsPerSecond, plain?.requestsPerSecond),
                        ratio(result.requestsPerSecond, peer?.requestsPerSecond),
                        ratio(result.cpuPerRequest, peer?.cpuPerRequest),
                        ratio(result.requestsPerSecond, wrk?.requestsPerSecond),
                    ])
                )
            }
        }
        if !proxied.isEmpty {
            lines.append("")
            lines.append("**`GET /1k.json` through squid** (a forward proxy on loopback, caching nothing)")
            lines.append("")
            lines.append("| Client | Concurrency | Requests/s | p50 | p99 | CPU/request | vs async-http-client |")
            lines.append("|---|--:|--:|--:|--:|--:|--:|")
            for result in proxied {
                lines.append(
                    row([
                        result.name, "\(result.concurrency)", format(result.requestsPerSecond, 0),
                        duration(result.percentile(0.5)), duration(result.percentile(0.99)),
                        duration(result.cpuPerRequest),
                        ratio(result.requestsPerSecond, peer(of: result, in: proxied)?.requestsPerSecond),
                    ])
                )
            }
        }
        if !cached.isEmpty {
            lines.append("")
            lines.append("**`GET /users.json` through the HTTP cache** (in memory; the body as `Data`, not decoded)")
            lines.append("")
            lines.append("| Client | Requests/s | p50 | p99 | CPU/request | vs no cache |")
            lines.append("|---|--:|--:|--:|--:|--:|")
            let uncached = cached.first { $0.name.hasSuffix("no cache") }
            for result in cached {
                lines.append(
                    row([
                        result.name, format(result.requestsPerSecond, 0), duration(result.percentile(0.5)),
                        duration(result.percentile(0.99)), duration(result.cpuPerRequest),
                        ratio(result.requestsPerSecond, uncached?.requestsPerSecond),
                    ])
                )
            }
        }
        lines.append("")
        lines.append("**`GET /large.bin`** (\(large.first?.bodyBytes ?? 0) bytes as `Data`, one request at a time)")
        lines.append("")
        lines.append(
            "| Client | Throughput | Requests/s | p50 | p99 | CPU/request | vs URLSession | vs async-http-client |"
        )
        lines.append("|---|--:|--:|--:|--:|--:|--:|--:|")
        let largeSession = large.first { $0.name == "URLSession" }
        for result in large {
            lines.append(
                row([
                    result.name, throughput(result.bytesPerSecond), format(result.requestsPerSecond, 0),
                    duration(result.percentile(0.5)), duration(result.percentile(0.99)),
                    duration(result.cpuPerRequest), ratio(result.bytesPerSecond, largeSession?.bytesPerSecond),
                    ratio(result.bytesPerSecond, peer(of: result, in: large)?.bytesPerSecond),
                ])
            )
        }
        lines.append("")
        lines.append(
            "**`GET /users.json` and decode `[User]`** (1,000 users, \(usersBytes) bytes, one request at a time)"
        )
        lines.append("")
        lines.append(
            "| Client | Requests/s | p50 | p99 | CPU/request | vs URLSession + JSONDecoder "
                + "| vs async-http-client + JSONDecoder |"
        )
        lines.append("|---|--:|--:|--:|--:|--:|--:|")
        let decodeSession = decode.first { $0.name == "URLSession + JSONDecoder" }
        for result in decode {
            lines.append(
                row([
                    result.name, format(result.requestsPerSecond, 1), duration(result.percentile(0.5)),
                    duration(result.percentile(0.99)), duration(result.cpuPerRequest),
                    ratio(result.requestsPerSecond, decodeSession?.requestsPerSecond),
                    ratio(result.requestsPerSecond, peer(of: result, in: decode)?.requestsPerSecond),
                ])
            )
        }
        return lines.joined(separator: "\n")
    }

    /// async-http-client's row to compare a row with: the one of the same concurrency over the same scheme, or its
    /// new-connection row for a new-connection row.
    private func peer(of result: PhaseResult, in results: [PhaseResult]) -> PhaseResult? {
        let traits = ["new connection", "HTTPS", "gzip"].map { result.name.contains($0) }
        return results.first { candidate in
            candidate.name.hasPrefix("async-http-client") && candidate.concurrency == result.concurrency
                && ["new connection", "HTTPS", "gzip"].map { candidate.name.contains($0) } == traits
        }
    }

    /// A row's client: wrk with its threads, as it runs with one thread at one connection and two at sixteen.
    private func displayName(_ result: PhaseResult) -> String {
        guard result.name == "wrk" else { return result.name }
        return result.concurrency == 1 ? "wrk, 1 thread" : "wrk, 2 threads"
    }
}

/// The Markdown tables of the HTTP/2 run, one for each file and scheme, and where Sluice's HTTP/2 stands against the
/// targets: at 16 and 100 requests at once, 1.5x async-http-client's requests per second at no more than 0.6x its CPU
/// a request, and 0.6x h2load's; at one, no slower than Sluice's own HTTP/1.1.
struct HTTP2Report {
    /// The phases of one file over one scheme.
    struct Group {
        /// The group's name in the raw lines (`1k TLS`).
        let name: String
        /// The table's heading.
        let title: String
        /// The phases, in the order they ran.
        let results: [PhaseResult]
    }

    /// The groups, in the order they ran.
    let groups: [Group]
    /// Whether h2load could not be found, so that its rows say so.
    let h2loadMissing: Bool
    /// The warm-up and measured times.
    let durations: Durations
    /// nginx's worker processes.
    let nginxWorkers: Int
    /// The one-minute load average before and after the run.
    let loads: (start: Double, end: Double)

    /// The name of the rows the ratios are taken against.
    static let peerName = "async-http-client"
    /// The name of Sluice's HTTP/2 rows.
    static let http2Name = "Sluice over HTTP/2"
    /// The name of Sluice's HTTP/1.1 rows.
    static let http1Name = "Sluice over HTTP/1.1"

    /// The tables, with the machine they ran on, and the targets met and missed.
    var markdown: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var lines = [
            "Measured on \(cores) cores (\(ProcessInfo.processInfo.operatingSystemVersionString)), against nginx with "
                + "\(nginxWorkers) worker process\(nginxWorkers == 1 ? "" : "es") on loopback; each row is "
                + "\(durations.measured) after a \(durations.warmUp) warm-up. CPU is the client process's user and "
                + "system time per request (h2load's own for its rows); nginx's is not included.",
            "",
            String(format: "One-minute load average: %.2f before the run, %.2f after.", loads.start, loads.end),
        ]
        var verdicts: [String] = []
        for group in groups {
            lines += ["", "**\(group.title)**", ""]
            lines.append(
                "| Client | Concurrency | Requests/s | p50 | p99 | CPU/request | vs async-http-client "
                    + "| CPU vs async-http-client | vs h2load | vs Sluice over HTTP/1.1 |"
            )
            lines.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
            for result in group.results {
                func named(_ name: String) -> PhaseResult? { counterpart(name, of: result, in: group) }
                let peer = named(Self.peerName)
                lines.append(
                    row([
                        result.name, "\(result.concurrency)", format(result.requestsPerSecond, 0),
                        duration(result.percentile(0.5)), duration(result.percentile(0.99)),
                        duration(result.cpuPerRequest), ratio(result.requestsPerSecond, peer?.requestsPerSecond),
                        ratio(result.cpuPerRequest, peer?.cpuPerRequest),
                        ratio(result.requestsPerSecond, named("h2load")?.requestsPerSecond),
                        ratio(result.requestsPerSecond, named(Self.http1Name)?.requestsPerSecond),
                    ])
                )
            }
            if h2loadMissing {
                lines.append(
                    row(
                        ["h2load: not installed (Debian: `apt-get install nghttp2-client`)"]
                            + [String](repeating: "–", count: 9)
                    )
                )
            }
            verdicts += group.results.filter { $0.name == Self.http2Name }.map { verdict($0, in: group) }
        }
        lines += ["", "Sluice over HTTP/2 against the targets:", ""] + verdicts.map { "- " + $0 }
        return lines.joined(separator: "\n")
    }

    /// The row of another client at the same concurrency in the same group.
    private func counterpart(_ name: String, of result: PhaseResult, in group: Group) -> PhaseResult? {
        group.results.first { $0.name == name && $0.concurrency == result.concurrency }
    }

    /// Where one of Sluice's HTTP/2 rows stands against the targets of its concurrency.
    private func verdict(_ result: PhaseResult, in group: Group) -> String {
        func named(_ name: String) -> PhaseResult? { counterpart(name, of: result, in: group) }
        func check(_ value: Double?, _ label: String, atLeast: Double? = nil, atMost: Double? = nil) -> String {
            guard let value, value.isFinite else { return "\(label): no row to compare with" }
            let met = atLeast.map { value >= $0 } ?? atMost.map { value <= $0 } ?? true
            let target = atLeast.map { "at least \(format($0, 1))×" } ?? "at most \(format(atMost ?? 0, 1))×"
            return "\(format(value, 2))× \(label) (target \(target): \(met ? "met" : "missed"))"
        }
        let header = "\(group.name) ×\(result.concurrency): "
        guard result.concurrency > 1 else {
            let http1 = named(Self.http1Name).map { result.requestsPerSecond / $0.requestsPerSecond }
            return header + check(http1, "Sluice's HTTP/1.1 requests/s", atLeast: 1)
        }
        let peer = named(Self.peerName)
        var checks: [String] = []
        if let peer {
            checks.append(
                check(result.requestsPerSecond / peer.requestsPerSecond, "async-http-client's requests/s", atLeast: 1.5)
            )
            checks.append(check(result.cpuPerRequest / peer.cpuPerRequest, "its CPU a request", atMost: 0.6))
        }
        let h2load = named("h2load").map { result.requestsPerSecond / $0.requestsPerSecond }
        checks.append(check(h2load, "h2load's requests/s", atLeast: 0.6))
        return header + checks.joined(separator: "; ")
    }
}

/// A Markdown table row.
private func row(_ cells: [String]) -> String {
    "| " + cells.joined(separator: " | ") + " |"
}

/// One value over another, as `1.23×`, or `–` without the other.
private func ratio(_ value: Double, _ base: Double?) -> String {
    guard let base, base > 0, value.isFinite else { return "–" }
    return String(format: "%.2f×", value / base)
}

/// Bytes a second, in MB/s or GB/s.
private func throughput(_ bytesPerSecond: Double) -> String {
    bytesPerSecond >= 1e9
        ? String(format: "%.2f GB/s", bytesPerSecond / 1e9) : String(format: "%.0f MB/s", bytesPerSecond / 1e6)
}

/// Seconds, in milliseconds or microseconds.
private func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "–" }
    if seconds >= 0.001 {
        return String(format: "%.2f ms", seconds * 1e3)
    }
    return String(format: "%.0f µs", seconds * 1e6)
}

/// A number with a fixed count of decimals.
private func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Seconds as whole microseconds.
private func micro(_ seconds: Double) -> String {
    seconds.isFinite ? String(format: "%.0f", seconds * 1e6) : "–"
}
