// async-http-client, the HTTP client on SwiftNIO (with BoringSSL for TLS) that Linux users pick instead of
// URLSession, measured beside Sluice's transport in the same run.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// One `HTTPClient` on the shared event loop group, as its documentation recommends: HTTP/1.1 only unless HTTP/2 is
/// asked for (the default run's nginx ports speak nothing else), at most 16 connections to a host, and the run's own
/// certificate trusted when there is one.
struct AsyncHTTPClientPeer: Sendable {
    /// The client.
    let client: HTTPClient
    /// Whether it asks for compressed bodies and decodes them.
    let decompressing: Bool
    /// Whether it offers `h2` by ALPN (the client's default) and every response must have come over HTTP/2.
    let http2: Bool

    /// Makes the client.
    ///
    /// - Parameters:
    ///   - certificate: The PEM file of the one root to trust for HTTPS, beside the system's; `nil` for none.
    ///   - proxyPort: A loopback HTTP proxy to send every request through, if any.
    ///   - decompressing: Whether to ask for compressed bodies and decode them (off by default in the client).
    ///   - http2: Whether to offer HTTP/2 by ALPN, as the client does by default, and check that every response
    ///     came over it.
    /// - Throws: When the certificate cannot be read.
    init(trusting certificate: URL?, proxyPort: UInt16? = nil, decompressing: Bool = false, http2: Bool = false) throws
    {
        var configuration = HTTPClient.Configuration()
        if let proxyPort {
            configuration.proxy = .server(host: "127.0.0.1", port: Int(proxyPort))
        }
        if decompressing {
            configuration.decompression = .enabled(limit: .ratio(100))
        }
        self.decompressing = decompressing
        self.http2 = http2
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        var tls = NIOSSL.TLSConfiguration.makeClientConfiguration()
        if let certificate {
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate.path))
        }
        configuration.tlsConfiguration = tls
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Sends a GET and collects the body.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - closing: Whether to ask for the connection to be closed after the response, so that each request opens
    ///     one (the handshake's cost).
    /// - Returns: The body.
    /// - Throws: ``UnexpectedStatus`` for a status other than 200, ``UnexpectedProtocol`` for a response that did not
    ///   come over HTTP/2 when it must, and whatever the client throws.
    func body(of url: URL, closing: Bool = false) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url.absoluteString)
        if decompressing {
            request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        if closing {
            request.headers.add(name: "Connection", value: "close")
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw UnexpectedStatus(status: Int(response.status.code)) }
        guard !http2 || response.version == .http2 else {
            throw UnexpectedProtocol(expected: "HTTP/2", received: "\(response.version)")
        }
        return try await response.body.collect(upTo: 8 << 20)
    }

    /// Sends a GET and returns the body's size.
    func size(of url: URL, closing: Bool = false) async throws -> Int {
        try await body(of: url, closing: closing).readableBytes
    }

    /// Sends a GET and decodes the body with `JSONDecoder`, as its users do.
    func decode<Value: Decodable>(_ type: Value.Type, from url: URL) async throws -> Value {
        let buffer = try await body(of: url)
        return try JSONDecoder().decode(type, from: Data(buffer.readableBytesView))
    }

    /// Closes the client's connections.
    func shutdown() async {
        try? await client.shutdown()
    }
}
