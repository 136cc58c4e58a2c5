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

    private func row(_ cells: [String]) -> String {
        "| " + cells.joined(separator: " | ") + " |"
    }

    private func ratio(_ value: Double, _ base: Double?) -> String {
        guard let base, base > 0, value.isFinite else { return "–" }
        return String(format: "%.2f×", value / base)
    }

    private func throughput(_ bytesPerSecond: Double) -> String {
        bytesPerSecond >= 1e9
            ? String(format: "%.2f GB/s", bytesPerSecond / 1e9) : String(format: "%.0f MB/s", bytesPerSecond / 1e6)
    }

    private func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "–" }
        if seconds >= 0.001 {
            return String(format: "%.2f ms", seconds * 1e3)
        }
        return String(format: "%.0f µs", seconds * 1e6)
    }
}

/// A number with a fixed count of decimals.
private func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Seconds as whole microseconds.
private func micro(_ seconds: Double) -> String {
    seconds.isFinite ? String(format: "%.0f", seconds * 1e6) : "–"
}
