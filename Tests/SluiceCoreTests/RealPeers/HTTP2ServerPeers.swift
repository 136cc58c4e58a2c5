import Foundation
import Testing

/// HTTP/2 servers that no one here wrote, run from Python for Sluice's transport to be checked against: hypercorn (an
/// ASGI server on the `h2` library) and a `grpcio` server, each over TLS (ALPN `h2`) or cleartext by prior knowledge.
final class HTTP2ServerPeer: Sendable {
    /// Which server.
    enum Kind: String, Sendable {
        /// hypercorn, serving a small ASGI application.
        case hypercorn
        /// grpcio, serving one unary method.
        case grpcio
    }

    /// The loopback port it listens on.
    let port: Int
    /// Whether it speaks TLS.
    let usesTLS: Bool
    private let script: PythonScript

    /// Starts a server, over TLS with the identity given or over cleartext without one; `nil` when Python or the
    /// server's library is missing and the peers are not required.
    ///
    /// - Parameters:
    ///   - kind: Which server.
    ///   - identity: The certificate chain and key it presents, for TLS.
    /// - Returns: The running server, or `nil` when it is missing and not required.
    /// - Throws: A failed requirement when the peers are required and missing, or when the server did not start.
    static func start(_ kind: Kind, identity: (chain: URL, key: URL)? = nil) async throws -> HTTP2ServerPeer? {
        let source = kind == .hypercorn ? hypercornSource : grpcioSource
        let arguments = identity.map { [$0.chain.path, $0.key.path] } ?? []
        guard
            let script = try await PythonScript.startServer(
                source,
                named: kind.rawValue,
                library: kind.rawValue,
                arguments: arguments
            ),
            let port = script.port
        else { return nil }
        return HTTP2ServerPeer(port: port, usesTLS: identity != nil, script: script)
    }

    private init(port: Int, usesTLS: Bool, script: PythonScript) {
        self.port = port
        self.usesTLS = usesTLS
        self.script = script
    }

    /// The URL of a path: `https://localhost:<port>` over TLS, `http://127.0.0.1:<port>` otherwise.
    func url(_ path: String) throws -> URL {
        try #require(URL(string: (usesTLS ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)") + path))
    }

    /// hypercorn with an ASGI application.
    ///
    /// Its routes:
    /// - `/version`: the HTTP version hypercorn saw, `2` or `1.1`;
    /// - `POST /echo`: the body back;
    /// - `/big/<n>`: `n` bytes, `i % 251` for the byte at `i`;
    /// - anything else: 404.
    ///
    /// Every response has `x-received`, the length of the request body.
    static let hypercornSource = #"""
        import asyncio, socket, sys
        try:
            from hypercorn.asyncio import serve
            from hypercorn.config import Config
        except ImportError:
            print("missing hypercorn", flush=True)
            sys.exit(0)

        async def app(scope, receive, send):
            if scope["type"] == "lifespan":
                while True:
                    message = await receive()
                    if message["type"] == "lifespan.startup":
                        await send({"type": "lifespan.startup.complete"})
                    elif message["type"] == "lifespan.shutdown":
                        await send({"type": "lifespan.shutdown.complete"})
                        return
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            path = scope["path"]
            if path == "/version":
                status, payload = 200, scope["http_version"].encode()
            elif path == "/echo":
                status, payload = 200, body
            elif path.startswith("/big/"):
                size = int(path[5:])
                status, payload = 200, bytes(i % 251 for i in range(size))
            else:
                status, payload = 404, b"no such route"
            headers = [(b"content-length", str(len(payload)).encode()), (b"x-received", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": payload})

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.set_inheritable(True)
        config = Config()
        config.bind = ["fd://%d" % listener.fileno()]
        if len(sys.argv) > 2:
            config.certfile, config.keyfile = sys.argv[1], sys.argv[2]
        config.loglevel = "WARNING"
        print(listener.getsockname()[1], flush=True)
        asyncio.run(serve(app, config))
        """#

    /// grpcio with one unary method, `/sluice.Echo/Say`, on raw bytes (no protobuf): it answers `echo:` and the
    /// request's message with the trailer `x-served-by: grpcio`, or, for a message `fail:<name>`, the status
    /// `NOT_FOUND` and the message `no greeting for <name>`.
    static let grpcioSource = #"""
        import sys
        from concurrent import futures
        try:
            import grpc
        except ImportError:
            print("missing grpcio", flush=True)
            sys.exit(0)

        def say(request, context):
            if request.startswith(b"fail:"):
                context.abort(grpc.StatusCode.NOT_FOUND, "no greeting for " + request[5:].decode())
            context.set_trailing_metadata((("x-served-by", "grpcio"),))
            return b"echo:" + request

        handler = grpc.method_handlers_generic_handler(
            "sluice.Echo", {"Say": grpc.unary_unary_rpc_method_handler(say)}
        )
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        server.add_generic_rpc_handlers((handler,))
        if len(sys.argv) > 2:
            with open(sys.argv[1], "rb") as chain, open(sys.argv[2], "rb") as key:
                credentials = grpc.ssl_server_credentials([(key.read(), chain.read())])
            port = server.add_secure_port("127.0.0.1:0", credentials)
        else:
            port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        print(port, flush=True)
        server.wait_for_termination()
        """#
}
