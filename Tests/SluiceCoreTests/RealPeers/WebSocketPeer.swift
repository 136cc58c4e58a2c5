import ClientFixtures
// Python's `websockets` library and aiohttp, two WebSocket servers no one here wrote, run as child processes on free
// loopback ports, plain or with TLS, from small scripts written at test time.
import Foundation
import SluiceCore
import TestSupport
import Testing

/// A running WebSocket server of one of two Python libraries, in a temporary directory of its own, on a loopback port
/// it picks and reports.
///
/// Its paths, the same for both kinds:
///
/// - `/echo`: sends every message back as it came, text as text and binary as binary; it takes messages of any size,
///   and accepts `permessage-deflate` when the client offers it.
/// - `/fragments`: sends a text message in three fragments and a binary one in two, then closes normally.
/// - `/ping`: pings the client, and once the pong has come sends the text `pong received`.
/// - `/close/<code>`: closes at once with the code and the reason `bye <code>`.
/// - `/drop`: sends `dropping`, then ends the TCP connection without a closing frame.
/// - `/authorization`: sends the request's `Authorization` field back as text.
/// - `/subprotocol`: sends the subprotocol chosen (`chat.v2` when the client offers it) as text.
/// - `/forbidden`: answers the handshake with 403 Forbidden.
/// - `/slow-handshake`: never answers the handshake.
/// - `/mute`: stops reading after the handshake, so that the client's pings go unanswered.
/// - `/sink` (websockets only): reads binary messages slowly (half a millisecond after each) and counts their bytes;
///   on the text `done`, sends the count as text.
/// - `/stream/<count>/<size>` (websockets only): sends `count` binary messages of `size` bytes as fast as the client
///   takes them, then closes normally.
/// - `/raw/<hex>`: writes the bytes the hex spells on the connection as they are (a frame that breaks RFC 6455),
///   then waits for the client to close.
/// - `/raw-close-code`: sends, as text, the close code of the next connection to `/raw/<hex>` to end, once it has.
///
/// It runs the Python of `SLUICE_PYTHON` (`.ci/run` points it at the virtual environment where it installs
/// `websockets` and `aiohttp`); without it, or without the kind's library there, the tests that need it are skipped,
/// unless `SLUICE_REQUIRE_PEERS=1`, when they fail.
final class WebSocketPeer: Sendable {
    /// The library that serves the WebSocket.
    enum Kind: String, CaseIterable, Sendable {
        /// Python's `websockets`, on asyncio (`websockets.asyncio.server`).
        case websockets
        /// aiohttp's `web.WebSocketResponse`; it has no call that sends fragments, so `/fragments` and `/raw/<hex>`
        /// write their frames on its transport.
        case aiohttp

        /// The server's script, written to its directory at start.
        fileprivate var script: String {
            switch self {
            case .websockets: WebSocketPeer.websocketsScript
            case .aiohttp: WebSocketPeer.aiohttpScript
            }
        }
    }

    /// The library serving it.
    let kind: Kind
    /// `ws://127.0.0.1:<port>` or `wss://localhost:<port>`; `ws://localhost` on a Unix domain socket.
    let baseURL: URL
    /// The Unix domain socket it listens on instead of a port, if it was started on one.
    let unixSocketPath: String?
    private let script: PythonScript

    /// Starts a server, or returns `nil` when Python or the kind's library is missing and the peers are not required.
    ///
    /// - Parameters:
    ///   - kind: The library to serve with; `websockets` by default.
    ///   - tls: The certificate chain and key to serve `wss://` with, if any.
    ///   - onUnixSocket: Whether it listens on a Unix domain socket in its directory rather than on a port.
    /// - Returns: The running server, or `nil` when it cannot be started here.
    /// - Throws: A failed requirement when the peers are required and missing, or when the server did not start.
    static func start(
        _ kind: Kind = .websockets,
        tls: (chain: URL, key: URL)? = nil,
        onUnixSocket: Bool = false
    ) async throws -> WebSocketPeer? {
        guard try PythonScript.isAvailable() else { return nil }
        let peer = try await offThePool {
            try WebSocketPeer(kind, tls: tls, onUnixSocket: onUnixSocket)
        }
        if peer == nil {
            try #require(!NginxServer.isRequired, "SLUICE_REQUIRE_PEERS is set, but \(kind) is not installed")
        }
        return peer
    }

    /// Starts the kind's script; `nil` when it reports that its library is missing.
    private init?(_ kind: Kind, tls: (chain: URL, key: URL)?, onUnixSocket: Bool) throws {
        let socketName = "websocket.sock"
        let tlsArguments = tls.map { [$0.chain.path, $0.key.path] } ?? []
        let arguments = tlsArguments + (onUnixSocket ? ["--unix", "{directory}/\(socketName)"] : [])
        let script = try PythonScript(kind.script, named: "websocket", arguments: arguments)
        // The script's first line: the port, or that its library is missing.
        guard let port = script.port else {
            if script.firstLine == "missing \(kind)" {
                return nil
            }
            throw WebSocketPeerError(description: "the \(kind) server did not start: \(script.firstLine)")
        }
        let socketPath = onUnixSocket ? script.directory.appendingPathComponent(socketName).path : nil
        let address =
            socketPath != nil ? "ws://localhost" : tls == nil ? "ws://127.0.0.1:\(port)" : "wss://localhost:\(port)"
        guard let url = URL(string: address) else {
            throw WebSocketPeerError(description: "no URL for port \(port)")
        }
        self.kind = kind
        self.baseURL = url
        self.unixSocketPath = socketPath
        self.script = script
    }

    /// A request for a path of the server.
    func request(_ path: String) -> URLRequest {
        URLRequest(url: baseURL.appendingPathComponent(String(path.dropFirst())))
    }

    /// The `websockets` server.
    private static let websocketsScript = #"""
        import asyncio, ssl, sys
        try:
            from websockets.asyncio.server import serve, unix_serve
            from websockets.exceptions import ConnectionClosed
        except ImportError:
            print("missing websockets", flush=True)
            sys.exit(0)

        # The close codes of the connections to /raw/<hex>, as they end.
        raw_close_codes = asyncio.Queue()

        def process_request(connection, request):
            if request.path == "/forbidden":
                return connection.respond(403, "forbidden\n")
            return None

        async def process_request_slowly(connection, request):
            if request.path == "/slow-handshake":
                await asyncio.sleep(3600)
            return process_request(connection, request)

        def select_subprotocol(connection, subprotocols):
            return "chat.v2" if "chat.v2" in subprotocols else None

        async def handler(ws):
            path = ws.request.path
            try:
                if path == "/echo":
                    async for message in ws:
                        await ws.send(message)
                elif path == "/fragments":
                    await ws.send(["frag", "mented ", "text ✓"])
                    await ws.send([b"\x00\x01", b"\x02"])
                    await ws.close()
                elif path == "/ping":
                    waiter = await ws.ping(b"are you there")
                    await waiter
                    await ws.send("pong received")
                    await ws.wait_closed()
                elif path.startswith("/close/"):
                    code = int(path[len("/close/"):])
                    await ws.close(code, "bye %d" % code)
                elif path == "/drop":
                    await ws.send("dropping")
                    ws.transport.abort()
                elif path == "/authorization":
                    await ws.send(ws.request.headers.get("Authorization", "none"))
                    await ws.wait_closed()
                elif path == "/mute":
                    ws.transport.pause_reading()
                    await asyncio.sleep(3600)
                elif path.startswith("/raw/"):
                    ws.transport.write(bytes.fromhex(path[len("/raw/"):]))
                    await ws.wait_closed()
                    await raw_close_codes.put(ws.close_code)
                elif path == "/raw-close-code":
                    await ws.send(str(await raw_close_codes.get()))
                    await ws.wait_closed()
                elif path == "/subprotocol":
                    await ws.send(ws.subprotocol or "none")
                    await ws.wait_closed()
                elif path == "/sink":
                    total = 0
                    async for message in ws:
                        if message == "done":
                            await ws.send(str(total))
                            break
                        total += len(message)
                        await asyncio.sleep(0.0005)
                    await ws.wait_closed()
                elif path.startswith("/stream/"):
                    count, size = (int(part) for part in path[len("/stream/"):].split("/"))
                    payload = bytes(index % 251 for index in range(size))
                    for _ in range(count):
                        await ws.send(payload)
                    await ws.close()
            except ConnectionClosed:
                pass

        async def main():
            # Handshakes may take two minutes, not websockets' 10 s: a 16 MiB compressed echo holds the server's one
            # event loop for seconds, and on a loaded machine the handshakes of the tests beside it timed out.
            context = None
            if len(sys.argv) > 2 and sys.argv[1] == "--unix":
                async with unix_serve(handler, sys.argv[2], max_size=None, process_request=process_request_slowly,
                                      select_subprotocol=select_subprotocol, ping_interval=None, open_timeout=120):
                    print(0, flush=True)
                    await asyncio.Future()
            if len(sys.argv) > 2:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
            async with serve(handler, "127.0.0.1", 0, ssl=context, max_size=None, open_timeout=120,
                             process_request=process_request_slowly, select_subprotocol=select_subprotocol, ping_interval=None) as server:
                print(server.sockets[0].getsockname()[1], flush=True)
                await asyncio.Future()

        asyncio.run(main())
        """#

    /// The aiohttp server: one handler for every path, each WebSocket prepared with `compress=True` (it then accepts
    /// `permessage-deflate` when the client offers it) and no limit on a message's size.
    private static let aiohttpScript = #"""
        import asyncio, socket, ssl, sys
        try:
            from aiohttp import WSMsgType, web
        except ImportError:
            print("missing aiohttp", flush=True)
            sys.exit(0)

        # The close codes of the connections to /raw/<hex>, as they end.
        raw_close_codes = asyncio.Queue()

        def frame(opcode, payload):
            # An unmasked frame of fewer than 126 bytes, as a server sends it.
            return bytes([opcode, len(payload)]) + payload

        async def drain(ws):
            async for _ in ws:
                pass

        async def handler(request):
            path = request.path
            if path == "/forbidden":
                return web.Response(status=403, text="forbidden\n")
            if path == "/slow-handshake":
                await asyncio.sleep(3600)
            ws = web.WebSocketResponse(compress=True, max_msg_size=0, protocols=("chat.v2",),
                                       autoping=path != "/ping")
            await ws.prepare(request)
            if path == "/echo":
                async for message in ws:
                    if message.type == WSMsgType.TEXT:
                        await ws.send_str(message.data)
                    elif message.type == WSMsgType.BINARY:
                        await ws.send_bytes(message.data)
            elif path == "/fragments":
                request.transport.write(frame(0x01, b"frag") + frame(0x00, b"mented ")
                                        + frame(0x80, "text ✓".encode()))
                request.transport.write(frame(0x02, b"\x00\x01") + frame(0x80, b"\x02"))
                await ws.close()
            elif path == "/ping":
                await ws.ping(b"are you there")
                async for message in ws:
                    if message.type == WSMsgType.PONG:
                        await ws.send_str("pong received")
                    elif message.type == WSMsgType.PING:
                        await ws.pong(message.data)
            elif path.startswith("/close/"):
                code = int(path[len("/close/"):])
                await ws.close(code=code, message=b"bye %d" % code)
            elif path == "/drop":
                await ws.send_str("dropping")
                request.transport.abort()
            elif path == "/authorization":
                await ws.send_str(request.headers.get("Authorization", "none"))
                await drain(ws)
            elif path == "/subprotocol":
                await ws.send_str(ws.ws_protocol or "none")
                await drain(ws)
            elif path == "/mute":
                request.transport.pause_reading()
                await asyncio.sleep(3600)
            elif path.startswith("/raw/"):
                request.transport.write(bytes.fromhex(path[len("/raw/"):]))
                await drain(ws)
                await raw_close_codes.put(ws.close_code)
            elif path == "/raw-close-code":
                await ws.send_str(str(await raw_close_codes.get()))
                await drain(ws)
            return ws

        async def main():
            app = web.Application()
            app.router.add_get("/{tail:.*}", handler)
            runner = web.AppRunner(app, handle_signals=False, access_log=None)
            await runner.setup()
            if len(sys.argv) > 2 and sys.argv[1] == "--unix":
                await web.UnixSite(runner, sys.argv[2]).start()
                print(0, flush=True)
            else:
                context = None
                if len(sys.argv) > 2:
                    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                    context.load_cert_chain(sys.argv[1], sys.argv[2])
                listener = socket.socket()
                listener.bind(("127.0.0.1", 0))
                await web.SockSite(runner, listener, ssl_context=context).start()
                print(listener.getsockname()[1], flush=True)
            await asyncio.Future()

        asyncio.run(main())
        """#
}

/// Why the server did not start.
struct WebSocketPeerError: Error, CustomStringConvertible {
    let description: String
}
