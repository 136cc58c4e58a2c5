import Foundation

extension SocketRequestPerformer {
    /// How a ``SocketRequestPerformer`` speaks HTTP/2.
    ///
    /// Over TLS, every connection offers `h2` before `http/1.1` by ALPN, and speaks HTTP/2 when the server chooses
    /// it: one connection to an origin then carries many requests at once, up to the server's
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` and ``maximumConcurrentStreams``, and a second one opens when the first is
    /// full, up to ``Configuration/maximumConnectionsPerOrigin``. Cleartext `http://` speaks HTTP/2 only to the
    /// origins named in ``priorKnowledge`` (a server that listens for it, such as nginx's `listen … http2`).
    ///
    /// The HTTP/2 engine is the system's nghttp2 (`libnghttp2.so.14`, which FoundationNetworking's libcurl loads
    /// already), loaded at run time, never linked; where it cannot be loaded, and on Apple platforms, connections
    /// offer HTTP/1.1 alone (``SocketRequestPerformer/http2UnavailableReason``).
    ///
    /// ```swift
    /// var configuration = SocketRequestPerformer.Configuration()
    /// configuration.http2.priorKnowledge = ["127.0.0.1:8080"]
    /// configuration.http2.http1Only = ["legacy.example.com:443"]
    /// let performer = SocketRequestPerformer(configuration: configuration)
    /// ```
    public struct HTTP2Settings: Sendable, Equatable {
        /// Whether `https://` connections offer `h2` by ALPN; `true` by default.
        public var isEnabled: Bool
        /// The cleartext origins spoken to in HTTP/2 from the first byte, without asking, as `host:port` (an IPv6
        /// address in brackets); none by default.
        public var priorKnowledge: Set<String>
        /// The origins kept on HTTP/1.1, as `host:port`, whatever the server offers; none by default.
        public var http1Only: Set<String>
        /// The most requests one HTTP/2 connection carries at once, whatever the server allows; 100 by default.
        public var maximumConcurrentStreams: Int
        /// The bytes of a response body the server may send on one stream before its reader takes them; 8 MiB by
        /// default, which is what a fast download needs (curl and async-http-client open about as much).
        ///
        /// A streamed body holds at most this and ``Configuration/streamReadAhead`` unread.
        public var streamWindow: Int
        /// The bytes of response bodies the server may send on one connection, all streams together, before their
        /// readers take them; 16 MiB by default.
        public var connectionWindow: Int
        /// The most bytes of a response's field section once decoded; 64 KiB by default.
        ///
        /// Names and values count with 32 bytes for each field, as RFC 7541 counts them; an HPACK bomb decodes to
        /// more. Announced to the server as `SETTINGS_MAX_HEADER_LIST_SIZE`.
        public var maximumFieldListSize: Int
        /// How long the server may send nothing on a connection before a PING checks that it still answers; 30
        /// seconds by default, `nil` for never.
        ///
        /// A request about to be sent on a connection silent that long waits for the PING's answer first, so that a
        /// connection a NAT or a load balancer dropped without a word is found out before it takes the request; a
        /// connection with requests under way that goes silent that long is sent a PING too.
        public var pingAfterSilence: Duration?
        /// How long a PING's answer may take before the connection is dropped; 5 seconds by default.
        ///
        /// The requests that waited for the answer were never sent, and go to a new connection whatever their method;
        /// those under way fail with a transport error whose underlying error is `URLError(.networkConnectionLost)`,
        /// and are sent again only where a kept-alive connection's would be.
        public var pingTimeout: Duration

        /// Creates settings; every parameter has the default its property documents.
        ///
        /// - Parameters:
        ///   - isEnabled: Whether `https://` connections offer `h2`.
        ///   - priorKnowledge: The cleartext origins spoken to in HTTP/2 at once, as `host:port`.
        ///   - http1Only: The origins kept on HTTP/1.1, as `host:port`.
        ///   - maximumConcurrentStreams: The most requests one connection carries at once.
        ///   - streamWindow: The bytes a stream may hold for its reader.
        ///   - connectionWindow: The bytes a connection may hold for its readers.
        ///   - maximumFieldListSize: The most bytes of a response's field section.
        ///   - pingAfterSilence: How long a server may be silent before a PING checks it, or `nil` for never.
        ///   - pingTimeout: How long a PING's answer may take.
        public init(
            isEnabled: Bool = true,
            priorKnowledge: Set<String> = [],
            http1Only: Set<String> = [],
            maximumConcurrentStreams: Int = 100,
            streamWindow: Int = 8 << 20,
            connectionWindow: Int = 16 << 20,
            maximumFieldListSize: Int = 64 << 10,
            pingAfterSilence: Duration? = .seconds(30),
            pingTimeout: Duration = .seconds(5)
        ) {
            self.isEnabled = isEnabled
            self.priorKnowledge = priorKnowledge
            self.http1Only = http1Only
            self.maximumConcurrentStreams = max(1, maximumConcurrentStreams)
            self.streamWindow = streamWindow
            self.connectionWindow = connectionWindow
            self.maximumFieldListSize = maximumFieldListSize
            self.pingAfterSilence = pingAfterSilence
            self.pingTimeout = pingTimeout
        }

        /// The pool's policy, with the loaded library; `nil` when none is loaded or nothing would speak HTTP/2.
        func policy(library: NGHTTP2?, maximumFieldCount: Int) -> ConnectionPool.HTTP2Policy? {
            guard let library, isEnabled || !priorKnowledge.isEmpty else { return nil }
            return ConnectionPool.HTTP2Policy(
                library: library,
                limits: HTTP2Session.Limits(
                    maximumFieldListSize: maximumFieldListSize,
                    maximumFieldCount: maximumFieldCount,
                    streamWindow: streamWindow,
                    connectionWindow: connectionWindow
                ),
                maximumStreams: maximumConcurrentStreams,
                offersOverTLS: isEnabled,
                priorKnowledge: Set(priorKnowledge.map { $0.lowercased() }),
                http1Only: Set(http1Only.map { $0.lowercased() }),
                liveness: HTTP2Connection.Liveness(pingAfterSilence: pingAfterSilence, pingTimeout: pingTimeout)
            )
        }
    }

    /// Why this transport does not speak HTTP/2, or `nil` when it does: nghttp2 could not be loaded, or this is an
    /// Apple platform, where `https://` goes to URLSession, which speaks HTTP/2 and HTTP/3 itself.
    public static var http2UnavailableReason: String? {
        #if canImport(Darwin)
        return "on Apple platforms https:// goes to URLSession, which speaks HTTP/2 itself"
        #else
        switch NGHTTP2.shared {
        case .success: return nil
        case .failure(let error): return error.description
        }
        #endif
    }
}
