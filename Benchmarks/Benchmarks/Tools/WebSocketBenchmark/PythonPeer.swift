// Python's `websockets`: the echo server every client is measured against, and the third client, each a script run
// as a child process with the interpreter `WEBSOCKET_BENCH_PYTHON` names. The client times itself and reports its
// messages, its measured window and its own CPU time over that window as one line of JSON.
import Foundation

/// The two scripts, written to a temporary directory of their own, removed by ``remove()``.
struct PythonScripts {
    /// The directory.
    let directory: URL
    /// The interpreter.
    let python: URL

    /// The server, `server.py PORT`.
    ///
    /// `/echo` echoes, `/sink` counts binary messages and answers the count on a text one, and
    /// `/stream/SIZE/COUNT/SECONDS` sends messages of SIZE bytes until it has sent COUNT of them or SECONDS have passed
    /// (0 for no limit), then `stopped`. It offers permessage-deflate to clients that ask.
    static let server = #"""
        import asyncio
        import os
        import sys
        import threading
        import time

        from websockets.asyncio.server import serve


        def payload(size):
            text, index = "", 0
            while len(text) < size:
                text += '{"id":%d,"name":"item %d","ok":true},' % (index, index)
                index += 1
            return text[:size].encode()


        async def echo(ws):
            async for message in ws:
                await ws.send(message)


        async def sink(ws):
            count = 0
            async for message in ws:
                if isinstance(message, str):
                    await ws.send(str(count))
                    count = 0
                else:
                    count += 1


        async def stream(ws, size, count, seconds):
            data = payload(size)
            end = time.monotonic() + seconds
            sent = 0
            while (count == 0 or sent < count) and (seconds == 0 or sent % 64 or time.monotonic() < end):
                await ws.send(data)
                sent += 1
                if sent % 64 == 0:
                    await asyncio.sleep(0)
            await ws.send("stopped")
            await ws.wait_closed()


        async def route(ws):
            path = ws.request.path
            if path == "/echo":
                await echo(ws)
            elif path == "/sink":
                await sink(ws)
            elif path.startswith("/stream/"):
                size, count, seconds = path[len("/stream/"):].split("/")
                await stream(ws, int(size), int(count), float(seconds))


        async def main():
            # The tool that started the server has ended when its standard input does.
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            async with serve(route, "127.0.0.1", int(sys.argv[1]), max_size=None, compression="deflate"):
                await asyncio.get_running_loop().create_future()


        asyncio.run(main())
        """#

    /// The client: `client.py URL MODE SIZE DEFLATE WARMUP SECONDS`.
    static let client = #"""
        import asyncio
        import json
        import resource
        import sys
        import time

        from websockets.asyncio.client import connect


        def payload(size):
            text, index = "", 0
            while len(text) < size:
                text += '{"id":%d,"name":"item %d","ok":true},' % (index, index)
                index += 1
            return text[:size].encode()


        def cpu():
            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_utime + usage.ru_stime


        async def echo(ws, data, seconds):
            count, end = 0, time.monotonic() + seconds
            while time.monotonic() < end:
                await ws.send(data)
                answer = await ws.recv()
                if len(answer) != len(data):
                    raise RuntimeError("echo of %d bytes, not %d" % (len(answer), len(data)))
                count += 1
            return count


        async def upload(ws, data, seconds):
            sent, end = 0, time.monotonic() + seconds
            while time.monotonic() < end:
                await ws.send(data)
                sent += 1
            await ws.send("count")
            count = int(await ws.recv())
            if count != sent:
                raise RuntimeError("the server counted %d of %d" % (count, sent))
            return count


        async def main():
            url, mode, size, deflate, warm_up, seconds = sys.argv[1:7]
            size, warm_up, seconds = int(size), float(warm_up), float(seconds)
            compression = "deflate" if deflate == "1" else None
            data = payload(size)
            async with connect(url, compression=compression, max_size=None) as ws:
                if mode == "download":
                    count, end = 0, time.monotonic() + warm_up
                    while time.monotonic() < end:
                        await ws.recv()
                    start, cpu_start = time.monotonic(), cpu()
                    end = start + seconds
                    while time.monotonic() < end:
                        await ws.recv()
                        count += 1
                    elapsed, cpu_used = time.monotonic() - start, cpu() - cpu_start
                    while await ws.recv() != "stopped":
                        pass
                else:
                    run = echo if mode == "echo" else upload
                    await run(ws, data, warm_up)
                    start, cpu_start = time.monotonic(), cpu()
                    count = await run(ws, data, seconds)
                    elapsed, cpu_used = time.monotonic() - start, cpu() - cpu_start
            print(json.dumps({"messages": count, "seconds": elapsed, "cpu": cpu_used}))


        asyncio.run(main())
        """#

    /// Writes the scripts.
    ///
    /// - Parameter python: The interpreter, which must import `websockets`.
    /// - Throws: What writing throws.
    init(python: URL) throws {
        self.python = python
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-websocket-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(Self.server.utf8).write(to: directory.appendingPathComponent("server.py"))
        try Data(Self.client.utf8).write(to: directory.appendingPathComponent("client.py"))
    }

    /// Starts the server on a port.
    ///
    /// - Parameter port: The loopback port.
    /// - Returns: The running process.
    /// - Throws: What starting it throws.
    func startServer(port: UInt16) throws -> Process {
        let process = Process()
        process.executableURL = python
        process.arguments = [directory.appendingPathComponent("server.py").path, String(port)]
        process.standardInput = Pipe()
        try process.run()
        return process
    }

    /// Runs the client for one phase and reads its report.
    ///
    /// - Parameters:
    ///   - url: The server's URL, with the mode's path.
    ///   - mode: What to measure.
    ///   - size: The payload's size.
    ///   - deflate: Whether to offer permessage-deflate.
    ///   - warmUp: The warm-up.
    ///   - measured: The measured window.
    /// - Returns: The client's counts.
    /// - Throws: ``UnexpectedMessage`` when the client fails or reports nothing readable.
    func runClient(
        url: URL,
        mode: Mode,
        size: Int,
        deflate: Bool,
        warmUp: Duration,
        measured: Duration
    ) throws -> Counted {
        let process = Process()
        process.executableURL = python
        process.arguments = [
            directory.appendingPathComponent("client.py").path, url.absoluteString, mode.rawValue, String(size),
            deflate ? "1" : "0", String(seconds(warmUp)), String(seconds(measured)),
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        struct Report: Decodable {
            let messages: Int
            let seconds: Double
            let cpu: Double
        }
        guard process.terminationStatus == 0, let report = try? JSONDecoder().decode(Report.self, from: data) else {
            throw UnexpectedMessage(description: "the Python client exited with \(process.terminationStatus)")
        }
        return Counted(messages: report.messages, seconds: report.seconds, cpu: report.cpu)
    }

    /// Whether the interpreter imports `websockets`.
    var works: Bool {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import websockets.asyncio.server"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// Removes the scripts.
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
