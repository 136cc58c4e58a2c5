import Foundation

/// Sluice's own ``RequestPerformer``: HTTP/1.1 and HTTP/2 over POSIX sockets, for `http://` and `https://` over TCP and for
/// Unix domain sockets, with kept-alive connections pooled per origin, on a few event-loop threads (epoll on Linux,
/// kqueue on Apple platforms) shared by every performer.
///
/// It exists because URLSession on Linux costs several hundred microseconds of CPU per request and cannot reach a
/// Unix socket. Opt in with one line:
///
/// ```swift
/// let client = APIClient(requestPerformer: SocketRequestPerformer())
/// ```
///
/// One performer serves every URL: `http://` it sends itself, and `https://` too where it ``handlesHTTPS``; other
/// schemes go to the ``Configuration/fallback`` performer, a ``NetworkRequestPerformer`` by default.
///
/// **HTTPS.** On Linux TLS comes from the system's OpenSSL, loaded at run time (`libssl.so.3`, else
/// `libssl.so.1.1`), the library FoundationNetworking's libcurl loads already; nothing of it is linked, so the package
/// builds without its headers. Certificates are verified against the system's trust store and the URL's host name or
/// IP address, TLS 1.2 at least, as ``Configuration/tls`` says (``TLSConfiguration``: extra trust roots, pinned
/// keys, a client certificate). Where OpenSSL cannot be loaded (a fully static program), and on Apple platforms,
/// where URLSession uses the system's own TLS and trust settings, `https://` goes to the fallback, unless
/// ``Configuration/tls`` asks for more than the default: a fallback would not honour pins or trust roots, so those
/// requests fail instead.
///
/// **Unix domain sockets.** A URL with the scheme `http+unix` and the socket's path, percent-encoded, as its host
/// goes to that socket: `http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json` asks the Docker engine for
/// its containers. Or set ``Configuration/unixSocketPath`` to send every `http://` request to one socket, whatever
/// its host, and keep ordinary URLs. The `Host` field is then `localhost`. A path longer than a socket address holds
/// (107 bytes on Linux, 103 on Apple platforms) fails the request with a ``SluiceError`` naming it.
///
/// **Proxies.** Requests go through the proxies ``Configuration/proxies`` names, by default those of the environment,
/// read as curl reads them: `http_proxy` (lower case only) for `http://`, `https_proxy` or `HTTPS_PROXY` for
/// `https://`, else `all_proxy` or `ALL_PROXY`, except for the hosts `no_proxy` or `NO_PROXY` lists (see
/// ``Proxy/Settings``). `http://` goes to an HTTP proxy in absolute form and `https://` through a `CONNECT` tunnel, then
/// TLS verified against the origin's name; SOCKS5 (`socks5://` resolving here, `socks5h://` at the proxy) tunnels
/// both. The proxy URL's user name and password go to the proxy only, hidden in logs and errors; a `407` fails with a
/// ``SluiceError`` that says so. Connections are pooled per origin and proxy. Unix sockets never go through a proxy.
///
/// **IPv4 and IPv6.** A host name is resolved on a thread of its own, never on the event loop, and its addresses are
/// tried in the resolver's order; a URL can also name an address of either family, such as `http://[::1]:8080/`.
///
/// **What it does.** Connections are kept alive and reused, at most
/// ``Configuration/maximumConnectionsPerOrigin`` open to each origin; more requests wait their turn. A connection
/// carries one request at a time (no pipelining). An idempotent request sent on a kept-alive connection that the
/// server had closed meanwhile is sent once more on a new connection; a POST is not. Redirects are followed, up to
/// ``Configuration/maximumRedirects``, dropping the `Authorization`, `Proxy-Authorization` and `Cookie` fields when
/// a redirect leaves their origin, as ``NetworkRequestPerformer`` does. Cookies are kept in ``cookieStorage``, a store
/// of the performer's own unless ``Configuration/cookies-swift.property`` names another, and sent on the requests and
/// redirects they match. A request body of data is sent with its `Content-Length`, a stream with the
/// `Content-Length` the request gives, or chunked without one; never both. A stream body is read on the event loop as
/// the socket takes it, so it must not block for long: files and Sluice's multipart streams read from disk.
///
/// **Compressed bodies.** A request is sent with `Accept-Encoding: gzip, deflate, br, zstd`, or as much of it as the
/// system's libraries decode here (``decodedContentCodings``; zlib, the brotli decoder and zstd, each loaded at run
/// time where it is installed, none linked), and a body whose `Content-Encoding` lists only those codings is decoded
/// as it arrives, buffered or streamed, in chunks of at most 64 KiB and with the same back-pressure; its
/// `Content-Encoding` and `Content-Length` fields stay as sent, as URLSession leaves them, and a streamed body's
/// ``HTTPBody/expectedLength`` is `nil`. A request that sets its own `Accept-Encoding`, a `Range` request (a download
/// that resumes sends one), a body with a coding not decoded here, and every body when
/// ``Configuration/decompressesBodies`` is `false`, are handed over as sent. A body that decodes to more than
/// ``Configuration/maximumBodySize`` in ``perform(_:)``, or expands more than
/// ``Configuration/maximumDecompressionRatio`` times, or is corrupt or cut short, fails with a ``SluiceError`` that
/// names the coding and the bytes received and decoded.
///
/// **HTTP/2.** Over TLS, connections offer `h2` by ALPN and speak HTTP/2 when the server chooses it, many requests to a
/// connection at once; cleartext HTTP/2 only to the origins ``Configuration/http2`` names for prior knowledge (see
/// ``HTTP2Settings``).
///
/// **Limits and errors.** The request's `timeoutInterval` is the longest wait for a byte of the response, as in
/// ``NetworkRequestPerformer``; connecting has ``Configuration/connectTimeout``; a head has
/// ``Configuration/maximumHeadTime`` from its first byte. A response whose status line, head, header count or
/// trailers pass the configured limits, a buffered body larger than
/// ``Configuration/maximumBodySize``, and a response that breaks HTTP/1.1 (a malformed status line, a field
/// without a colon, both `Content-Length` and `Transfer-Encoding`, a length that is not a number, a chunk size that
/// is not hex, bytes beyond the announced length, a body cut short) each fail the request with a ``SluiceError``
/// that names what was wrong, and the connection is closed rather than pooled. Cancelling the calling task closes
/// the connection at once and frees its place in the pool.
///
/// **Streaming.** ``stream(_:)`` returns at the head. The socket is read only while the reader keeps up: once
/// ``Configuration/streamReadAhead`` bytes wait unread, reading stops until the reader has taken three quarters of
/// them, so a body of any size streams in bounded memory.
public final class SocketRequestPerformer: RequestPerformer {
    /// The configuration the performer was made with.
    public let configuration: Configuration
    /// Where the performer keeps cookies: a store of its own, made with it, unless
    /// ``Configuration/cookies-swift.property`` names one; `nil` when it keeps none.
    ///
    /// Two performers never share it unless they were given the same store.
    public let cookieStorage: HTTPCookieStorage?
    /// What sends the requests the performer does not: the configuration's ``Configuration/fallback``, or URLSession
    /// keeping its cookies in ``cookieStorage``.
    let fallback: any RequestPerformer
    let pool: ConnectionPool

    /// Creates a performer with its own pool of connections.
    ///
    /// - Parameter configuration: Limits, timeouts and the fallback; the defaults suit most services.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, poolEvents: nil)
    }

    /// Creates a performer with its own pool of connections, which reports what it does on its own to `poolEvents`.
    ///
    /// - Parameters:
    ///   - configuration: Limits, timeouts and the fallback.
    ///   - poolEvents: Where the pool reports its events; `nil` to report none.
    package convenience init(configuration: Configuration, poolEvents: (any PoolEventSink)?) {
        // On Apple platforms https:// goes to URLSession, which applies the system's TLS and trust settings.
        #if canImport(Darwin)
        self.init(configuration: configuration, tlsLibrary: nil, poolEvents: poolEvents)
        #else
        self.init(configuration: configuration, tlsLibrary: try? OpenSSL.shared.get(), poolEvents: poolEvents)
        #endif
    }

    /// Creates a performer whose `https://` connections use a given OpenSSL, such as a 1.1.1 build the tests load
    /// from a path, rather than the system's.
    ///
    /// - Parameters:
    ///   - configuration: Limits, timeouts and the fallback.
    ///   - tlsLibrary: The OpenSSL to use; `nil` to send `https://` to the fallback.
    ///   - poolEvents: Where the pool reports its events; `nil` to report none.
    package init(configuration: Configuration, tlsLibrary: OpenSSL?, poolEvents: (any PoolEventSink)? = nil) {
        self.configuration = configuration
        let cookieStorage = configuration.cookies.storageForNewPerformer()
        self.cookieStorage = cookieStorage
        fallback =
            configuration.fallback
            ?? NetworkRequestPerformer(configuration: .ephemeral(keepingCookiesIn: cookieStorage))
        sendsDirectly = configuration.unixSocketPath != nil || configuration.proxies.namesNone
        httpsUnavailable =
            tlsLibrary == nil ? Self.httpsUnavailableReason ?? "this performer was given no OpenSSL" : nil
        pool = ConnectionPool(
            settings: ConnectionPool.Settings(
                maximumConnectionsPerOrigin: configuration.maximumConnectionsPerOrigin,
                connectTimeout: configuration.connectTimeout,
                idleTimeout: configuration.idleConnectionTimeout,
                limits: HeadLimits(
                    statusLineLength: configuration.maximumStatusLineLength,
                    headerCount: configuration.maximumHeaderCount,
                    headBytes: configuration.maximumHeaderBytes,
                    headTime: configuration.maximumHeadTime
                ),
                readAhead: configuration.streamReadAhead,
                tls: configuration.tls,
                tlsLibrary: tlsLibrary,
                http2: configuration.http2.policy(
                    library: Self.http2UnavailableReason == nil ? try? NGHTTP2.shared.get() : nil,
                    maximumFieldCount: configuration.maximumHeaderCount
                ),
                addresses: configuration.addresses
            ),
            events: poolEvents
        )
    }

    /// Whether this performer sends `https://` requests itself, rather than handing them to its fallback.
    ///
    /// `true` on Linux when OpenSSL could be loaded (the system's, unless a test gave the performer another);
    /// `false` where it could not (a fully static program; ``httpsUnavailableReason`` says why) and on Apple
    /// platforms, where URLSession applies the system's own TLS policy and trust settings, which a user and their
    /// device management expect every app to honour.
    public var handlesHTTPS: Bool { httpsUnavailable == nil }

    /// Why this performer does not send `https://` itself, or `nil` when it does (``handlesHTTPS``).
    let httpsUnavailable: String?

    /// Whether no request goes through a proxy: every `http://` request goes to ``Configuration/unixSocketPath``, or
    /// ``Configuration/proxies`` names none.
    private let sendsDirectly: Bool

    /// Why this transport does not send `https://` itself, or `nil` when it does.
    public static var httpsUnavailableReason: String? {
        // Apple platforms keep URLSession for https: the system's TLS and trust settings apply there.
        #if canImport(Darwin)
        return "on Apple platforms https:// goes to URLSession, which applies the system's TLS and trust settings"
        #else
        switch OpenSSL.shared {
        case .success: return nil
        case .failure(let error): return error.description
        }
        #endif
    }

    /// Closes every kept-alive connection not carrying a request now.
    ///
    /// The next request to their origins opens new ones. Connections in use are left to finish. A performer closes
    /// its idle connections itself when it is released.
    public func closeIdleConnections() {
        pool.closeIdleConnections()
    }

    /// The content codings this transport decodes, in the order its `Accept-Encoding` lists them: `gzip`, `deflate`,
    /// `br` and `zstd`, each where the system library that decodes it could be loaded (`libz.so.1`,
    /// `libbrotlidec.so.1`, `libzstd.so.1`).
    public static var decodedContentCodings: [String] { ContentCoding.available.map(\.name) }

    /// Why each content coding this transport knows is not decoded here, by coding: its library could not be loaded.
    ///
    /// Empty when it decodes all four.
    public static var undecodedContentCodings: [String: String] {
        var reasons: [String: String] = [:]
        for coding in ContentCoding.all {
            reasons[coding.name] = coding.unavailableReason
        }
        return reasons
    }

    /// An executor that runs tasks on one of the transport's event loops, the next in turn at each call.
    ///
    /// A task that prefers it (`withTaskExecutorPreference(_:operation:)`, or
    /// `Task(executorPreference:operation:)`) runs on that loop's thread, and the connections it opens are that
    /// loop's: a request is written, answered and handed back on one thread, where otherwise the loop reads the
    /// answer and wakes a thread of the cooperative pool to take it. It suits a task that sends request after request
    /// and does little between them; work that takes long (decoding a large body, anything that blocks) holds up
    /// every connection of the loop while it runs, and belongs on the cooperative pool. That includes what Sluice
    /// does on the task's own thread: a disk cache reads and writes its files there, `HTTPCookieStorage` may write
    /// its file, and a request body given as an `InputStream` is read as the socket takes it, so a stream whose
    /// producer runs on the same loop would wait for it forever.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    public static func loopExecutor() -> any TaskExecutor {
        EventLoop.next()
    }

    deinit {
        pool.closeIdleConnections()
    }

    /// The connections open now, idle or carrying a request.
    public var openConnections: Int { pool.openConnections.value }

    /// The gauge that counts ``openConnections``, for a test to await a count rather than poll it.
    package var openConnectionsGauge: Gauge { pool.openConnections }

    /// The sockets the performer's connections hold open, counted from their making to their descriptor's closing, for
    /// a test to see that none leak.
    package var openDescriptorsGauge: Gauge { pool.openDescriptors }

    /// The `SSL` objects the performer's TLS connections hold, for a test to see that none leak; `nil` before its
    /// first `https://` connection.
    package var liveSSLObjectsGauge: Gauge? { pool.liveSSLObjects }

    /// The sessions OpenSSL stores in the performer's TLS context, for a test to see that it stores none (the
    /// performer keeps the last of each origin itself); `nil` before its first `https://` connection.
    package var sessionsStoredByOpenSSL: Int? { pool.sessionsStoredByOpenSSL }

    /// The requests in flight, for a test to await a count.
    ///
    /// They are the connections carrying one, from the moment it takes a connection (or starts to open one) until
    /// its response has been read to the end, a streamed body's included, or it has failed. A request waiting for a
    /// connection to be free is not counted.
    package var requestsInFlightGauge: Gauge { pool.activeLeases }

    /// The kept-alive connections waiting for a request.
    public var idleConnections: Int { pool.idleConnections }

    /// Sends a request and returns its whole response, whatever the status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and body, and the URL that answered after redirects.
    /// - Throws: ``SluiceError`` naming what failed (``SluiceError/Code/timedOut`` for a timeout), or
    ///   `CancellationError` when the calling task was cancelled.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await followingRedirects(
            request,
            fallback: fallback.perform,
            delivery: Exchange.Delivery.buffered
        )
    }

    /// Sends a request and returns as soon as the response's head has arrived, with the body to read as it
    /// arrives.
    ///
    /// The socket is read only while the reader keeps up (see ``Configuration/streamReadAhead``); the request's
    /// `timeoutInterval` is the longest wait between chunks while it does. Cancelling the reading task, or dropping
    /// the body before its end, closes the connection at once.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and the body to read.
    /// - Throws: What ``perform(_:)`` throws, before the head; the body throws what fails it later.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        // A redirect's own body is not wanted: dropping it closes its connection.
        try await followingRedirects(
            request,
            fallback: fallback.stream,
            delivery: Exchange.Delivery.streamed
        )
    }

    /// Sends a request and each redirect it leads to, or hands it to the fallback when the transport does not serve
    /// its URL.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - fallback: The fallback's form of the transport stage.
    ///   - delivery: Who waits for an exchange's response, made from its continuation: the case of
    ///     ``Exchange/Delivery`` that ``perform(_:)`` or ``stream(_:)`` fixed.
    /// - Returns: The response that is not a redirect to follow.
    /// - Throws: What the exchange or the fallback throws, or ``SluiceError`` after too many redirects.
    private func followingRedirects<Response: ResponseHead>(
        _ request: URLRequest,
        fallback: (URLRequest) async throws -> Response,
        delivery: (CheckedContinuation<Response, any Error>) -> Exchange.Delivery
    ) async throws -> Response {
        var current = request
        for hop in 0...configuration.maximumRedirects {
            // Without a proxy named, there is none to look up: most requests go directly.
            let proxy =
                sendsDirectly ? nil : try current.url.map { url throws(SluiceError) in try self.proxy(for: url) } ?? nil
            guard let url = current.url,
                let origin = Origin(
                    url,
                    unixSocketPath: configuration.unixSocketPath,
                    servesHTTPS: handlesHTTPS,
                    proxy: proxy
                )
            else {
                try refuseFallbackWithoutTLSSettings(current)
                guard hop > 0 else { return try await fallback(current) }
                // The first hop was reported as sent; a redirect's hop must not take its place.
                return try await TransportScope.$sentRequest.withValue(nil) { try await fallback(current) }
            }
            warnOfUncheckedCertificates(for: origin)
            var outgoing = withStoredCookies(current)
            if hop == 0 {
                reportSent(outgoing)
            }
            // After the report to the cache: what the instrumentation writes is no field a response varies on.
            let attempt = TransportScope.beginWireAttempt(&outgoing, redirectHop: hop)
            let response = try await TransportScope.reporting(attempt) {
                try await exchange(outgoing, origin: origin, delivery: delivery, attempt: attempt)
            }
            storeCookies(of: response, for: current)
            if response.status.code == 407, let proxy = origin.proxy, origin.sendsAbsoluteForm {
                throw SluiceError(
                    .transport,
                    message:
                        "the proxy \(proxy) requires authentication (407 Proxy Authentication Required) for \(url.absoluteString): it \(proxy.hasCredentials ? "refused the user name and password from its URL" : "asks for them")",
                    underlyingError: URLError(.userAuthenticationRequired)
                )
            }
            guard let next = try redirect(current, status: response.status.code, headers: response.headers) else {
                return response
            }
            current = next
        }
        throw tooManyRedirects(request)
    }

    /// The proxy a request to a URL goes through, if any, its credentials noted for redaction (they are sent with the
    /// request, though not in its headers as built).
    ///
    /// - Throws: ``SluiceError`` when the proxy settings are not usable.
    func proxy(for url: URL) throws(SluiceError) -> Proxy? {
        guard configuration.unixSocketPath == nil, let proxy = try configuration.proxies.proxy(for: url) else {
            return nil
        }
        for credential in proxy.credentialsToHide {
            TransportScope.noteCredential(credential)
        }
        return proxy
    }

    /// Warns the current request's observers, when ``TLSConfiguration/insecurelySkippingVerification`` is set, that
    /// the certificate of the origin it goes to over TLS is not checked: the transport prints nothing itself.
    func warnOfUncheckedCertificates(for origin: Origin) {
        guard origin.usesTLS, configuration.tls.insecurelySkippingVerification else { return }
        TransportScope.noteWarning(
            "TLS certificate verification is off (insecurelySkippingVerification): the certificate of \(origin) was not checked, and any server is trusted"
        )
    }

    /// Throws for an `https://` request that would go to the fallback though ``Configuration/tls`` asks for more than
    /// the default: the fallback would not honour pins, trust roots or a client identity.
    private func refuseFallbackWithoutTLSSettings(_ request: URLRequest) throws(SluiceError) {
        guard request.url?.scheme?.lowercased() == "https", !configuration.tls.isDefault, let reason = httpsUnavailable
        else { return }
        throw SluiceError(
            .transport,
            message:
                "the request to \(request.url?.absoluteString ?? "?") was not sent: its TLS configuration cannot be honoured, since \(reason)",
            underlyingError: URLError(.secureConnectionFailed)
        )
    }

}
