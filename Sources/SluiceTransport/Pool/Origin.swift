import Foundation

/// Where a connection goes, and the key its pool holds it by: the scheme (with or without TLS), the host and port over
/// TCP or a Unix domain socket, and the proxy it goes through.
///
/// The TLS settings are the pool's (one per performer), so that whether TLS is used completes the key; nothing in it
/// names a protocol, so that connections of any protocol to one origin share its limits.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// How to reach the origin.
    enum Address: Hashable, Sendable {
        /// A host name or address and a port, over TCP.
        case tcp(host: String, port: Int)
        /// A Unix domain socket's path.
        case unix(path: String)
    }

    /// How to reach the origin.
    var address: Address
    /// Whether connections to it speak TLS (`https://`).
    var usesTLS = false
    /// The proxy connections to it go through, if any: an origin reached directly and one through a proxy are
    /// pooled apart.
    var proxy: Proxy?

    /// Whether connections to it go through a `CONNECT` tunnel even without TLS.
    ///
    /// Without it, requests to an HTTP proxy go in absolute form; a WebSocket's `ws://` sets it, since its connection,
    /// once upgraded, is the WebSocket's own. Such connections are never pooled with the absolute-form ones.
    var tunnelsWithoutTLS = false

    /// Whether requests go to an HTTP proxy in absolute form, rather than through a tunnel or directly: `http://`
    /// through an HTTP proxy, unless ``tunnelsWithoutTLS``.
    var sendsAbsoluteForm: Bool { proxy?.kind == .http && !usesTLS && !tunnelsWithoutTLS }

    /// The value of the `Host` field for requests to the origin.
    var hostField: String {
        switch address {
        case .tcp(let host, let port):
            return port == (usesTLS ? 443 : 80)
                ? SocketAddress.bracketed(host) : SocketAddress.authority(host: host, port: port)
        case .unix:
            return "localhost"
        }
    }

    /// The origin as a log or an error names it: `127.0.0.1:8080`, `unix:/var/run/docker.sock`, or
    /// `example.com:443 through the proxy http://127.0.0.1:3128`.
    package var description: String {
        let through = proxy.map { " through the proxy \($0)" } ?? ""
        switch address {
        case .tcp(let host, let port):
            return SocketAddress.authority(host: host, port: port) + through
        case .unix(let path):
            return "unix:\(path)"
        }
    }

    /// The origin of a URL the transport serves itself: `http://host[:port]`, `https://host[:port]` when it can
    /// speak TLS, or `http+unix://` with the socket's percent-encoded path as the host; `nil` for any other scheme,
    /// which goes to the fallback.
    ///
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - unixSocketPath: A socket every `http://` request goes to instead of its host, when set.
    ///   - servesHTTPS: Whether `https://` is served (OpenSSL is loaded).
    ///   - proxy: The proxy to go through, if any; never for a Unix socket.
    package init?(_ url: URL, unixSocketPath: String?, servesHTTPS: Bool = false, proxy: Proxy? = nil) {
        switch url.scheme?.lowercased() {
        case "http":
            if let unixSocketPath {
                address = .unix(path: unixSocketPath)
            } else {
                guard let host = url.host, !host.isEmpty else { return nil }
                address = .tcp(host: host, port: url.port ?? 80)
            }
        case "https" where servesHTTPS:
            guard let host = url.host, !host.isEmpty else { return nil }
            address = .tcp(host: host, port: url.port ?? 443)
            usesTLS = true
        case "http+unix":
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let encoded = components.percentEncodedHost,
                let path = encoded.removingPercentEncoding, !path.isEmpty
            else { return nil }
            address = .unix(path: path)
        default:
            return nil
        }
        if case .tcp = address {
            self.proxy = proxy
        }
    }
}
