// URLSession over HTTPS, measured in a child process of this tool that sees a CA bundle holding the run's certificate.
//
// On Linux, FoundationNetworking points libcurl at the system's CA bundle (`/etc/ssl/certs/ca-certificates.crt` on
// Debian and Ubuntu) and offers no way to trust another root: neither `SSL_CERT_FILE` nor a delegate's server-trust
// challenge reaches it. The child runs in a mount namespace of its own (`unshare --mount`, with `--user
// --map-root-user` when not root), where that path is bind-mounted over by a copy of the bundle with the run's
// certificate added; nothing outside the child sees it, and nothing on disk changes.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum URLSessionOverHTTPS {
    /// The bundle FoundationNetworking hands libcurl on Debian and Ubuntu.
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"
    /// Set in the child's environment: the URL it fetches.
    static let urlVariable = "TRANSPORT_BENCH_URLSESSION_HTTPS_URL"
    /// Set in the child's environment: its concurrency.
    static let concurrencyVariable = "TRANSPORT_BENCH_URLSESSION_HTTPS_CONCURRENCY"
    /// Set in the child's environment: the size of the body every response must have, when not the 1 KB document's.
    static let bodyBytesVariable = "TRANSPORT_BENCH_URLSESSION_HTTPS_BYTES"
    /// Set in the child's environment: the protocol every response's `X-Protocol` field must name, if any.
    static let protocolVariable = "TRANSPORT_BENCH_URLSESSION_HTTPS_PROTOCOL"
    /// The start of the child's line that carries its result.
    static let resultPrefix = "URLSESSION_HTTPS_RESULT "

    /// Whether this process is the child.
    static var isChild: Bool { ProcessInfo.processInfo.environment[urlVariable] != nil }

    /// Measures URLSession on the URL its environment names, prints the result on one line and returns.
    ///
    /// - Parameters:
    ///   - durations: The warm-up and measured times.
    ///   - bodyBytes: The size of the body every request must return, unless the environment names another.
    static func runChild(durations: Durations, bodyBytes: Int) async {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment[urlVariable], let url = URL(string: text) else { return }
        let concurrency = environment[concurrencyVariable].flatMap { Int($0) } ?? 1
        let bodyBytes = environment[bodyBytesVariable].flatMap { Int($0) } ?? bodyBytes
        let servedOver = environment[protocolVariable]
        let session = URLSession(configuration: sessionConfiguration())
        let request = makeRequest(url)
        let result = await measure(
            "URLSession",
            concurrency: concurrency,
            durations: durations,
            bodyBytes: bodyBytes,
            expected: bodyBytes
        ) {
            try bodySize(await session.data(for: request), servedOver: servedOver)
        }
        guard let encoded = try? JSONEncoder().encode(result) else { return }
        print(resultPrefix + String(decoding: encoded, as: UTF8.self))
    }

    /// Runs the child on a URL and reads its result.
    ///
    /// - Parameters:
    ///   - url: The HTTPS URL.
    ///   - certificate: The certificate to trust, PEM.
    ///   - concurrency: The tasks sending at once.
    ///   - bodyBytes: The size of the body every response must have; the 1 KB document's unless given.
    ///   - servedOver: The protocol every response's `X-Protocol` field must name (`HTTP/2.0`), if any.
    /// - Returns: The child's phase.
    /// - Throws: ``ServerError`` naming why the child could not run or what it printed instead of a result.
    static func run(
        _ url: URL,
        trusting certificate: URL,
        concurrency: Int,
        bodyBytes: Int? = nil,
        servedOver: String? = nil
    ) throws -> PhaseResult {
        guard let unshare = findExecutable("unshare", extra: ["/usr/bin/unshare"]) else {
            throw ServerError(description: "unshare (util-linux) is missing")
        }
        guard FileManager.default.fileExists(atPath: systemBundle) else {
            throw ServerError(description: "\(systemBundle) is missing: FoundationNetworking's bundle is elsewhere")
        }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let bundle = certificate.deletingLastPathComponent().appendingPathComponent("urlsession-bundle.pem")
        var contents = try Data(contentsOf: URL(fileURLWithPath: systemBundle))
        contents.append(Data("\n".utf8))
        contents.append(try Data(contentsOf: certificate))
        try contents.write(to: bundle)

        let process = Process()
        process.executableURL = unshare
        let namespaces = getuid() == 0 ? ["--mount"] : ["--user", "--map-root-user", "--mount"]
        process.arguments =
            namespaces + [
                "/bin/sh", "-c", #"mount --bind "$1" "$2" && exec "$3""#, "sh", bundle.path, systemBundle, executable,
            ]
        var environment = ProcessInfo.processInfo.environment
        environment[urlVariable] = url.absoluteString
        environment[concurrencyVariable] = "\(concurrency)"
        environment[bodyBytesVariable] = bodyBytes.map { "\($0)" }
        environment[protocolVariable] = servedOver
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = output.split(separator: "\n").last { $0.hasPrefix(resultPrefix) }
        guard let line,
            let result = try? JSONDecoder().decode(
                PhaseResult.self,
                from: Data(line.dropFirst(resultPrefix.count).utf8)
            )
        else {
            throw ServerError(description: "the child printed no result:\n\(output.suffix(2_000))")
        }
        return result
    }
}
