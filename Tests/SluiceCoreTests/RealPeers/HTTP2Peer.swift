import Foundation
import TestSupport
import Testing

/// An HTTP/2 server over cleartext TCP by prior knowledge, written with Python's `h2` (hyper-h2, from PyPI): a protocol
/// stack no one here wrote, for the tests of Sluice's HTTP/2 session.
///
/// Its routes:
/// - `GET /hello`: 200, `content-type: text/plain`, `hello over h2`;
/// - `POST /echo`: 200 with the request body back, and `x-received` its length;
/// - `GET /big/<n>`: 200 with `n` bytes (`i % 251` for the byte at `i`), sent as fast as the flow control windows
///   allow, so that a client that does not open its window again stalls it;
/// - `GET /trailers`: 200, a body, then the trailer `x-checksum: done`;
/// - `GET /many-fields/<n>`: 200 with `n` fields `x-field-<i>`;
/// - `GET /reset`: the stream reset with `REFUSED_STREAM`;
/// - `GET /reset-internal`: the stream reset with `INTERNAL_ERROR`;
/// - `/connection`: 200, the connection's number (1 for the server's first) as the body;
/// - `/refused-once/<key>`: the first request with a key has its stream reset with `REFUSED_STREAM`; later ones are
///   answered as `/connection` is;
/// - `/goaway-once/<key>`: for the first request with a key, a `GOAWAY` whose last stream is the one before it, and
///   no answer (the request was not processed); later ones are answered as `/connection` is;
/// - `/goaway-after`: answered as `/connection` is, followed by a `GOAWAY` that names its stream as the last;
/// - `/silent-after`: answered as `/connection` is; then the server reads the connection's bytes and answers nothing,
///   not even a PING, as a peer behind a NAT that dropped the connection;
/// - `/silent`: no answer, and the connection goes silent as after `/silent-after`;
/// - `POST /no-window`: the request body is never acknowledged, so the windows of the stream and the connection never
///   open again, and no answer;
/// - `/ping-flood`: 5,000 PINGs at once, then an answer as `/connection`'s;
/// - `/data-after-end`: answered as `/connection` is, then a DATA frame on the stream it ended;
/// - anything else: 404.
///
/// Its settings allow 7 concurrent streams. Started `mute`, it accepts connections, reads what comes and sends nothing,
/// not even its preface.
final class HTTP2Peer: Sendable {
    /// The loopback port it listens on.
    let port: Int
    private let script: PythonScript

    /// Starts the server, or returns `nil` when Python or `h2` is missing and the peers are not required.
    ///
    /// - Throws: A failed requirement when the peers are required and missing, or when the server did not start.
    static func start(mute: Bool = false) async throws -> HTTP2Peer? {
        let arguments = mute ? ["--mute"] : []
        guard let script = try await PythonScript.startServer(source, named: "h2", library: "h2", arguments: arguments),
            let port = script.port
        else { return nil }
        return HTTP2Peer(port: port, script: script)
    }

    private init(port: Int, script: PythonScript) {
        self.port = port
        self.script = script
    }

    /// The server, in Python.
    static let source = #"""
        import socket, sys, threading
        try:
            import h2.config, h2.connection, h2.events, h2.errors, h2.settings
        except ImportError:
            print("missing h2", flush=True)
            sys.exit(0)

        lock = threading.Lock()
        state = {"connections": 0, "seen": set()}

        def first_time(key):
            with lock:
                if key in state["seen"]:
                    return False
                state["seen"].add(key)
                return True

        def serve(sock):
            with lock:
                state["connections"] += 1
                number = state["connections"]
            config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
            conn = h2.connection.H2Connection(config=config)
            conn.initiate_connection()
            conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 7})
            sock.sendall(conn.data_to_send())
            bodies, pending, unacknowledged = {}, {}, set()
            silent = False
            late = []

            def respond(stream, status, fields, body=b"", trailers=None):
                conn.send_headers(stream, [(":status", str(status))] + fields, end_stream=not body and not trailers)
                if body or trailers:
                    pending[stream] = [body, trailers]

            def flush():
                for stream in list(pending):
                    body, trailers = pending[stream]
                    while body:
                        window = min(conn.local_flow_control_window(stream), conn.max_outbound_frame_size)
                        if window <= 0:
                            break
                        conn.send_data(stream, body[:window])
                        body = body[window:]
                    pending[stream][0] = body
                    if not body:
                        if trailers:
                            conn.send_headers(stream, trailers, end_stream=True)
                        else:
                            conn.end_stream(stream)
                        del pending[stream]

            while True:
                data = sock.recv(65536)
                if not data:
                    return
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        bodies[event.stream_id] = (dict(event.headers), b"")
                        if dict(event.headers)[":path"] == "/no-window":
                            unacknowledged.add(event.stream_id)
                    elif isinstance(event, h2.events.DataReceived):
                        fields, body = bodies[event.stream_id]
                        bodies[event.stream_id] = (fields, body + event.data)
                        if event.stream_id not in unacknowledged:
                            conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        fields, body = bodies.pop(event.stream_id)
                        path, stream = fields[":path"], event.stream_id
                        if path == "/hello":
                            respond(stream, 200, [("content-type", "text/plain")], b"hello over h2")
                        elif path == "/echo":
                            respond(stream, 200, [("x-received", str(len(body)))], body)
                        elif path.startswith("/big/"):
                            size = int(path[5:])
                            respond(stream, 200, [("content-length", str(size))], bytes(i % 251 for i in range(size)))
                        elif path == "/trailers":
                            respond(stream, 200, [], b"body", trailers=[("x-checksum", "done")])
                        elif path.startswith("/many-fields/"):
                            count = int(path[13:])
                            respond(stream, 200, [("x-field-%d" % i, "v") for i in range(count)])
                        elif path == "/reset":
                            conn.reset_stream(stream, h2.errors.ErrorCodes.REFUSED_STREAM)
                        elif path == "/reset-internal":
                            conn.reset_stream(stream, h2.errors.ErrorCodes.INTERNAL_ERROR)
                        elif path == "/connection":
                            respond(stream, 200, [], str(number).encode())
                        elif path.startswith("/refused-once/"):
                            if first_time(path):
                                conn.reset_stream(stream, h2.errors.ErrorCodes.REFUSED_STREAM)
                            else:
                                respond(stream, 200, [], str(number).encode())
                        elif path.startswith("/goaway-once/"):
                            if first_time(path):
                                conn.close_connection(last_stream_id=stream - 2)
                            else:
                                respond(stream, 200, [], str(number).encode())
                        elif path == "/silent-after":
                            respond(stream, 200, [], str(number).encode())
                            silent = True
                        elif path == "/silent":
                            silent = True
                        elif path == "/ping-flood":
                            for i in range(5000):
                                conn.ping(i.to_bytes(8, "big"))
                            respond(stream, 200, [], str(number).encode())
                        elif path == "/data-after-end":
                            respond(stream, 200, [], str(number).encode())
                            flush()
                            sock.sendall(conn.data_to_send())
                            # A DATA frame of 5 bytes with END_STREAM, on the stream just ended, past the library.
                            late.append(b"\x00\x00\x05\x00\x01" + stream.to_bytes(4, "big") + b"late!")
                        elif path == "/goaway-after":
                            respond(stream, 200, [], str(number).encode())
                            flush()
                            conn.close_connection(last_stream_id=stream)
                        else:
                            respond(stream, 404, [], b"no such route")
                flush()
                sock.sendall(conn.data_to_send() + b"".join(late))
                late.clear()
                while silent:
                    if not sock.recv(65536):
                        return

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        print(listener.getsockname()[1], flush=True)
        def hold(sock):
            while sock.recv(65536):
                pass

        while True:
            client, _ = listener.accept()
            threading.Thread(target=hold if "--mute" in sys.argv else serve, args=(client,), daemon=True).start()
        """#
}
