import Foundation

extension ConnectionPool {
    /// How the pool's connections speak HTTP/2: offered by ALPN over TLS, spoken at once to the cleartext origins
    /// named for prior knowledge, never to those kept on HTTP/1.1.
    struct HTTP2Policy: Sendable {
        /// The loaded nghttp2.
        var library: NGHTTP2
        /// What each session lets in.
        var limits: HTTP2Session.Limits
        /// The most streams at once on one connection, whatever the server allows.
        var maximumStreams: Int
        /// Whether `https://` connections offer `h2` by ALPN.
        var offersOverTLS: Bool
        /// The cleartext origins spoken to in HTTP/2 at once, as `host:port`.
        var priorKnowledge: Set<String>
        /// The origins kept on HTTP/1.1, as `host:port`.
        var http1Only: Set<String>
        /// When PINGs check that a server still answers.
        var liveness: HTTP2Connection.Liveness

        /// How a connection to an origin may come to speak HTTP/2.
        enum Mode {
            /// Never: HTTP/1.1.
            case never
            /// If the server chooses `h2` by ALPN.
            case negotiated
            /// At once, by prior knowledge.
            case priorKnowledge
        }

        /// How a connection to an origin may come to speak HTTP/2: never through an HTTP proxy in absolute form, nor
        /// over a Unix socket.
        func mode(for origin: Origin) -> Mode {
            guard case .tcp(let host, let port) = origin.address, !origin.sendsAbsoluteForm else { return .never }
            let authority = SocketAddress.authority(host: host, port: port).lowercased()
            if http1Only.contains(authority) {
                return .never
            }
            if origin.usesTLS {
                return offersOverTLS ? .negotiated : .never
            }
            return origin.proxy == nil && priorKnowledge.contains(authority) ? .priorKnowledge : .never
        }
    }
}
