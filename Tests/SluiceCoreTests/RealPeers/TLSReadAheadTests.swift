// A TLS server whose bytes after a response arrive in the same read as the response: a hostile server's way to
// answer a request the client has not sent yet.
import Foundation
import SluiceCore
import TestSupport
import Testing

/// A server's bytes after a response never answer the next request.
///
/// Sent in a TLS record of their own but the same TCP segment, they are read from the socket along with the response
/// and wait inside OpenSSL, where the socket's readiness never reports them. A connection that went back to the pool so
/// would hand them to the next request as its answer; it must be closed instead.
///
/// The server is Python's `ssl` module on memory buffers, so that both records go out in one `sendall`, and every
/// connection's response names the connection: `conn 1`, `conn 2`. The stray bytes are a whole response of their
/// own, `stray!`.
@Suite(.enabled(if: tlsPeersPresent, tlsPeersMissing))
struct TLSReadAheadTests {
    static let script = #"""
        import socket, ssl, sys

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        print(listener.getsockname()[1], flush=True)
        kept = []


        def pump(connection, incoming, outgoing, step):
            # Runs a step of TLS, feeding it the client's bytes until it needs no more; None when the client left.
            while True:
                try:
                    return step()
                except ssl.SSLWantReadError:
                    if outgoing.pending:
                        connection.sendall(outgoing.read())
                    data = connection.recv(65536)
                    if not data:
                        return None
                    incoming.write(data)


        number = 0
        while True:
            connection, _ = listener.accept()
            kept.append(connection)
            number += 1
            incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
            tls = context.wrap_bio(incoming, outgoing, server_side=True)
            if pump(connection, incoming, outgoing, lambda: tls.do_handshake() or True) is None:
                continue
            if outgoing.pending:
                connection.sendall(outgoing.read())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = pump(connection, incoming, outgoing, lambda: tls.read(65536))
                if not chunk:
                    break
                head += chunk
            body = b"conn %d" % number
            tls.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            tls.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstray!")
            connection.sendall(outgoing.read())
        """#

    @Test func aRecordBehindTheResponseClosesTheConnectionRatherThanAnswerTheNextRequest() async throws {
        guard try PythonScript.isAvailable() else { return }
        let pki = try await requirePKI()
        let arguments = [pki.good.chain.path, pki.good.key.path]
        let server = try await offThePool {
            try PythonScript(Self.script, named: "tls-read-ahead", arguments: arguments)
        }
        let port = try #require(server.port, "the server did not start: \(server.firstLine)")
        let url = try #require(URL(string: "https://localhost:\(port)/"))
        let performer = try tlsPerformer(pki)
        var bodies: [String] = []
        for _ in 0..<3 {
            bodies.append(String(decoding: try await performer.perform(URLRequest(url: url)).body, as: UTF8.self))
        }
        #expect(bodies == ["conn 1", "conn 2", "conn 3"])
    }
}
