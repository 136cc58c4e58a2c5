import Foundation

extension SocketRequestPerformer {
    /// How a ``SocketRequestPerformer`` connects, and the limits it holds responses to.
    public struct Configuration: Sendable {
        /// The most connections open to one origin at once; 16 by default.
        public var maximumConnectionsPerOrigin: Int
        /// How long connecting may take, from the first attempt to the end of the proxy's and TLS handshakes, all of
        /// the host's addresses together; 10 s by default, `nil` for no limit.
        ///
        /// The host's lookup before it is bounded by the system's resolver (the `timeout` and `attempts` of
        /// `resolv.conf`). How the addresses are raced is ``addresses``.
        public var connectTimeout: Duration?
        /// How long an idle kept-alive connection stays open; 60 s by default.
        public var idleConnectionTimeout: Duration
        /// The longest status line, in bytes; 8 KiB by default.
        public var maximumStatusLineLength: Int
        /// The most header fields in a response; 100 by default.
        public var maximumHeaderCount: Int
        /// The most bytes in a response's head, status line and fields together, and in its trailers; 64 KiB by
        /// default.
        public var maximumHeaderBytes: Int
        /// The longest a response's head may take to arrive, from its first byte to its empty line; 30 s by default,
        /// `nil` for no limit.
        ///
        /// The request's `timeoutInterval` bounds each silence, so a head that drips a byte at a time would pass it;
        /// this bounds the whole head. A server that sends nothing at all is bounded by the `timeoutInterval`, and a
        /// body that drips forever by the client's ``APIClient/deadline`` (see <doc:ProductionBehaviour>).
        public var maximumHeadTime: Duration?
        /// The largest body ``SocketRequestPerformer/perform(_:)`` accepts, in bytes; 64 MiB by default.
        public var maximumBodySize: Int
        /// The most bytes of a streamed body read ahead of its reader; 256 KiB by default.
        ///
        /// The connection stops reading once this many wait unread, and goes on when the reader has taken all but a
        /// quarter. Each chunk the reader gets is what one round of the event loop read for the body (up to 16 reads
        /// of 64 KiB, no more than this), so that a fast download wakes the reader once a round, not once a read.
        public var streamReadAhead: Int
        /// Whether compressed bodies are asked for and decoded; `true` by default.
        ///
        /// When `true`, a request without its own `Accept-Encoding` or `Range` is sent with an `Accept-Encoding` that
        /// lists what this process decodes (``SocketRequestPerformer/decodedContentCodings``), and a body whose
        /// `Content-Encoding` lists only those codings is decoded as it arrives. When `false`, no `Accept-Encoding` is
        /// added and every body is handed over as the server sent it.
        public var decompressesBodies: Bool
        /// The most a compressed body may expand: a body that decodes to more than this many bytes for each byte
        /// received fails as a likely decompression bomb; 100 by default, `nil` for no bound.
        ///
        /// The first 64 KiB decoded are never refused for their ratio, so that a small body of repetitive text may
        /// compress as well as it can. JSON and HTML compress between 3 and 20 times with gzip, rarely more than 50;
        /// a gzip bomb expands about 1,000 times, a brotli or zstd bomb far more.
        public var maximumDecompressionRatio: Int?
        /// The most redirects followed for one request; 16 by default, 0 to hand redirects back.
        public var maximumRedirects: Int
        /// Whether a redirect from `https` to `http` is followed; not by default.
        ///
        /// Such a redirect would send the request in clear text. The other rules of the redirects followed hold
        /// whatever this says (see <doc:ProductionBehaviour>).
        public var followsRedirectsFromHTTPSToHTTP: Bool
        /// The socket every `http://` request goes to instead of its host, if set.
        public var unixSocketPath: String?
        /// How `https://` connections are secured; verified against the system's trust store by default.
        public var tls: TLSConfiguration
        /// The proxies requests go through; those the environment names by default (``Proxy/Settings/environment``,
        /// read when the configuration is made), ``Proxy/Settings/none`` for none.
        ///
        /// Requests to a Unix domain socket, and with ``unixSocketPath``, never go through a proxy.
        public var proxies: Proxy.Settings
        /// Where cookies are kept: every response's `Set-Cookie` fields, a redirect's included, are stored there, and
        /// the cookies it holds for a request's URL are sent with it; a store of each performer's own by default
        /// (``Cookies-swift.struct/perPerformer``), so that no two clients share a cookie unless you pass them one
        /// store.
        ///
        /// A request whose `httpShouldHandleCookies` is `false` gets no stored cookie, and its responses' cookies are
        /// not stored. A cookie the request names in its own `Cookie` field is sent as it gives it. On a redirect to
        /// another origin the request's own `Cookie` field is dropped; the stored cookies for the new URL are sent
        /// (domain, path, `Secure` and expiry as the storage and RFC 6265 match them).
        public var cookies: Cookies
        /// What sends the requests this performer does not send itself; `nil`, the default, for a
        /// ``NetworkRequestPerformer`` made with the performer, on an ephemeral session that keeps its cookies in the
        /// performer's store.
        ///
        /// Those are every scheme but `http`, `http+unix` and, where the performer ``handlesHTTPS``, `https`.
        public var fallback: (any RequestPerformer)?
        /// How HTTP/2 is spoken: offered by ALPN over TLS by default, to cleartext origins by prior knowledge only
        /// (``SocketRequestPerformer/HTTP2Settings``).
        public var http2: HTTP2Settings
        /// How a host's addresses are raced (Happy Eyeballs) and how long they are kept
        /// (``SocketRequestPerformer/AddressSettings``).
        public var addresses: AddressSettings

        /// Creates a configuration; every parameter has the default its property documents.
        ///
        /// - Parameters:
        ///   - maximumConnectionsPerOrigin: The most connections open to one origin at once.
        ///   - connectTimeout: How long connecting may take.
        ///   - idleConnectionTimeout: How long an idle kept-alive connection stays open.
        ///   - maximumStatusLineLength: The longest status line, in bytes.
        ///   - maximumHeaderCount: The most header fields in a response.
        ///   - maximumHeaderBytes: The most bytes in a response's head, and in its trailers.
        ///   - maximumHeadTime: The longest a response's head may take from its first byte to its end.
        ///   - maximumBodySize: The largest buffered body, in bytes.
        ///   - streamReadAhead: The most bytes of a streamed body read ahead of its reader.
        ///   - decompressesBodies: Whether compressed bodies are asked for and decoded.
        ///   - maximumDecompressionRatio: The most a compressed body may expand, or `nil` for no bound.
        ///   - maximumRedirects: The most redirects followed for one request.
        ///   - followsRedirectsFromHTTPSToHTTP: Whether a redirect from `https` to `http` is followed.
        ///   - unixSocketPath: The socket every `http://` request goes to, if any.
        ///   - tls: How `https://` connections are secured.
        ///   - proxies: The proxies requests go through.
        ///   - cookies: Where cookies are kept.
        ///   - fallback: What sends the schemes the performer does not; `nil` for URLSession.
        ///   - http2: How HTTP/2 is spoken.
        ///   - addresses: How a host's addresses are raced and kept.
        public init(
            maximumConnectionsPerOrigin: Int = 16,
            connectTimeout: Duration? = .seconds(10),
            idleConnectionTimeout: Duration = .seconds(60),
            maximumStatusLineLength: Int = 8 << 10,
            maximumHeaderCount: Int = 100,
            maximumHeaderBytes: Int = 64 << 10,
            maximumHeadTime: Duration? = .seconds(30),
            maximumBodySize: Int = 64 << 20,
            streamReadAhead: Int = 256 << 10,
            decompressesBodies: Bool = true,
            maximumDecompressionRatio: Int? = 100,
            maximumRedirects: Int = 16,
            followsRedirectsFromHTTPSToHTTP: Bool = false,
            unixSocketPath: String? = nil,
            tls: TLSConfiguration = TLSConfiguration(),
            proxies: Proxy.Settings = .environment,
            cookies: Cookies = .perPerformer,
            fallback: (any RequestPerformer)? = nil,
            http2: HTTP2Settings = HTTP2Settings(),
            addresses: AddressSettings = AddressSettings()
        ) {
            self.maximumConnectionsPerOrigin = max(1, maximumConnectionsPerOrigin)
            self.connectTimeout = connectTimeout
            self.idleConnectionTimeout = idleConnectionTimeout
            self.maximumStatusLineLength = maximumStatusLineLength
            self.maximumHeaderCount = maximumHeaderCount
            self.maximumHeaderBytes = maximumHeaderBytes
            self.maximumHeadTime = maximumHeadTime
            self.maximumBodySize = maximumBodySize
            self.streamReadAhead = max(1, streamReadAhead)
            self.decompressesBodies = decompressesBodies
            self.maximumDecompressionRatio = maximumDecompressionRatio.map { max(1, $0) }
            self.maximumRedirects = max(0, maximumRedirects)
            self.followsRedirectsFromHTTPSToHTTP = followsRedirectsFromHTTPSToHTTP
            self.unixSocketPath = unixSocketPath
            self.tls = tls
            self.proxies = proxies
            self.cookies = cookies
            self.fallback = fallback
            self.http2 = http2
            self.addresses = addresses
        }
    }
}
