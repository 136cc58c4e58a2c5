// Sluice's WebSocket beside swift-websocket's client (on SwiftNIO) and Python's `websockets` client, against the
// same local echo server, in one run: `swift run -c release WebSocketBenchmark`.
//
// The tool writes a Python `websockets` server and client to a temporary directory and starts the server on a free
// loopback port; the interpreter must import `websockets` (`pip install websockets`). A second server, on SwiftNIO,
// is this same executable run as a child (`WebSocketBenchmark serve PORT`), so that a server slower than the clients
// can be told from a slow client; it does not speak permessage-deflate, so the compressed phases run against the
// Python server only.
//
// Each phase opens one connection, runs a warm-up on it, then the measured window: echo (send one message, await its
// echo, again), upload (send as fast as the client takes them; the window ends when the server has answered its count
// of them, which must be all of them) or download (the server streams, the client reads), with messages of 32 B and
// 64 KiB, without and with permessage-deflate. The payload is JSON-like text sent as binary messages. CPU per message
// is this process's user and system time over the window (the server's is not in it) divided by the messages; the
// Python client reports its own over its window. A fourth client, a raw socket with no library (RawSocketClient.swift),
// is the limit, as wrk is over HTTP: what the server sends to it or takes from it is as much as any client can reach.
//
// First the memory test, before any phase has grown the process: a slow Sluice reader (and a slow swift-websocket
// one, for comparison) reads a stream of 64 KiB messages, pausing after each, while the server (the SwiftNIO one
// where it runs) sends as fast as it can; the peak resident memory (VmHWM, reset before each reader) shows whether
// what is not yet read stays bounded.
//
// Settings, from the environment:
// - `WEBSOCKET_BENCH_SECONDS`: the measured window of each phase; 3 by default.
// - `WEBSOCKET_BENCH_WARMUP`: the warm-up of each phase; 0.5 by default.
// - `WEBSOCKET_BENCH_TIMEOUT`: how long one phase may take before the tool gives up; 60 by default.
// - `WEBSOCKET_BENCH_PYTHON`: the Python interpreter; `python3` by default.
// - `WEBSOCKET_BENCH_SERVERS`: the servers, comma-separated: `python`, `nio`; both by default.
// - `WEBSOCKET_BENCH_FILTER`: run only the phases whose name contains one of these comma-separated texts (a client,
//   `Sluice`, `swift-websocket`, `Python`, `raw socket`; a mode, `echo`, `upload`, `download`; `deflate`).
// - `WEBSOCKET_BENCH_SLOW_BYTES`: how much the slow reader reads; 1 GiB (1073741824) by default, 0 for no memory test.
// - `WEBSOCKET_BENCH_SLOW_PAUSE_MS`: the slow reader's pause after each 64 KiB message, in milliseconds; 1 by default.
import Foundation

if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "serve", let port = Int(CommandLine.arguments[2]) {
    runEchoServer(port: port)
}

/// Prints a line of progress at once, also into a file or a pipe.
func show(_ line: String) {
    print(line)
    fflush(nil)
}

/// Reads a number of seconds from the environment.
func setting(_ name: String, default value: Double) -> Duration {
    let text = ProcessInfo.processInfo.environment[name]
    return .milliseconds(Int((text.flatMap(Double.init) ?? value) * 1_000))
}

let environment = ProcessInfo.processInfo.environment
let warmUp = setting("WEBSOCKET_BENCH_WARMUP", default: 0.5)
let measured = setting("WEBSOCKET_BENCH_SECONDS", default: 3)
let phaseLimit = setting("WEBSOCKET_BENCH_TIMEOUT", default: 60)
let filter = environment["WEBSOCKET_BENCH_FILTER"] ?? ""
let serverNames = (environment["WEBSOCKET_BENCH_SERVERS"] ?? "python,nio").split(separator: ",").map(String.init)
let slowBytes = environment["WEBSOCKET_BENCH_SLOW_BYTES"].flatMap { Int($0) } ?? 1 << 30
let slowPause = setting("WEBSOCKET_BENCH_SLOW_PAUSE_MS", default: 1) / 1_000
let sizes = [32, 64 << 10]
let loadAtStart = loadAverage()

/// Whether `WEBSOCKET_BENCH_FILTER` lets a phase run: no filter, or one of its comma-separated texts in the name.
func selected(_ name: String) -> Bool {
    filter.isEmpty || filter.split(separator: ",").contains { name.contains($0) }
}

/// Writes a line to standard error and ends the process.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("WebSocketBenchmark: \(message)\n".utf8))
    exit(1)
}

let pythonName = environment["WEBSOCKET_BENCH_PYTHON"] ?? "python3"
guard let python = findExecutable(pythonName) else { fail("\(pythonName) not found (WEBSOCKET_BENCH_PYTHON)") }
let scripts: PythonScripts
do {
    scripts = try PythonScripts(python: python)
} catch {
    fail("cannot write the Python scripts: \(error)")
}
guard scripts.works else { fail("\(python.path) does not import websockets: pip install websockets") }
let servers = RunningServers()
let watchdog = Watchdog { phase in
    FileHandle.standardError.write(Data("WebSocketBenchmark: \"\(phase)\" ran past \(phaseLimit); giving up\n".utf8))
    servers.stopAll()
    scripts.remove()
    exit(2)
}

print("warm-up \(warmUp), measured \(measured) per phase, phase limit \(phaseLimit); \(python.path)")
// Every server first, so that the memory test runs before any phase has grown the process.
var started: [(name: String, url: URL)] = []
for serverName in serverNames {
    do {
        switch serverName {
        case "python": started.append(("python", try servers.start("python") { try scripts.startServer(port: $0) }))
        case "nio": started.append(("nio", try servers.start("nio") { try startOwnServer(port: $0) }))
        default: fail("unknown server \(serverName) in WEBSOCKET_BENCH_SERVERS")
        }
    } catch {
        fail("the \(serverName) server did not start: \(error)")
    }
}

var slowReads: [SlowReadResult] = []
// The memory test streams from the SwiftNIO server where it runs: it sends faster than the Python one.
if slowBytes > 0, let server = (started.first { $0.name == "nio" } ?? started.first)?.url {
    let count = (slowBytes + (64 << 10) - 1) / (64 << 10)
    let url = server.appendingPathComponent("stream/\(64 << 10)/\(count)/0")
    print("\nslow reader: \(slowBytes) B of 64 KiB messages from \(url), pausing \(slowPause) after each")
    for client in SwiftClient.allCases where client.isLibrary && selected("\(client.rawValue) slow") {
        watchdog.begin("\(client.rawValue) slow reader", limit: .seconds(3_600))
        let before = processMemory("VmRSS") ?? 0
        resetPeakMemory()
        do {
            let read = try await client.withConnection(to: url, deflate: false, size: 64 << 10) { connection in
                try await readSlowly(&connection, total: slowBytes, pause: slowPause)
            }
            let result = SlowReadResult(
                name: client.rawValue,
                bytes: read.bytes,
                seconds: read.seconds,
                residentBefore: before,
                residentMaximum: read.residentMaximum,
                residentPeak: processMemory("VmHWM") ?? 0
            )
            show(result.rawLine)
            slowReads.append(result)
        } catch {
            show("\(client.rawValue) slow reader failed: \(error)")
        }
        watchdog.end()
    }
}

print("\nraw results:")
print(PhaseResult.rawHeader)
var results: [PhaseResult] = []
for (serverName, server) in started {
    for mode in Mode.allCases {
        for size in sizes {
            for deflate in serverName == "nio" ? [false] : [false, true] {
                let streamed = seconds(warmUp + measured) + 1
                let url = server.appendingPathComponent(String(mode.path(size: size, seconds: streamed).dropFirst()))
                let phase = PhaseResult.Phase(server: serverName, mode: mode, size: size, deflate: deflate)
                for client in PhaseResult.clients where selected("\(client) \(phase.name)") {
                    if deflate && client == SwiftClient.rawSocket.rawValue { continue }
                    watchdog.begin("\(client) \(phase.name)", limit: phaseLimit)
                    let counted: Result<Counted, any Error>
                    if let swiftClient = SwiftClient(rawValue: client) {
                        counted = await Result(awaiting: {
                            try await swiftClient.withConnection(to: url, deflate: deflate, size: size) { connection in
                                try await runPhase(
                                    mode,
                                    size: size,
                                    on: &connection,
                                    warmUp: warmUp,
                                    measured: measured
                                )
                            }
                        })
                    } else {
                        counted = Result(catching: {
                            try scripts.runClient(
                                url: url,
                                mode: mode,
                                size: size,
                                deflate: deflate,
                                warmUp: warmUp,
                                measured: measured
                            )
                        })
                    }
                    watchdog.end()
                    let result = PhaseResult(client: client, phase: phase, counted: counted)
                    show(result.rawLine)
                    results.append(result)
                }
            }
        }
    }
}

servers.stopAll()
scripts.remove()
print("\nload average (1 min): \(String(format: "%.2f", loadAtStart)) at the start, ", terminator: "")
print("\(String(format: "%.2f", loadAverage())) at the end, on \(ProcessInfo.processInfo.activeProcessorCount) cores")
print(report(results, slowReads: slowReads))
