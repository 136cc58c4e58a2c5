import Foundation

extension URLError {
    /// The error of a request that waited longer than its idle timeout for a byte of the response; both transports
    /// throw it, and the client reports it as ``SluiceError/Code/timedOut``.
    ///
    /// - Parameter timeout: The idle timeout.
    /// - Returns: A `timedOut` error whose description states the limit.
    static func idleTimeout(_ timeout: Duration) -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey: "no byte of the response within the idle timeout of "
                    + PipelineMetrics.format(timeout)
            ]
        )
    }

    /// The error of a response head that took longer than its limit to arrive whole, from its first byte.
    ///
    /// - Parameter limit: The limit.
    /// - Returns: A `timedOut` error whose description names it.
    static func headTimeout(_ limit: Duration) -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey: "the response head took longer than the limit of "
                    + PipelineMetrics.format(limit) + " to arrive whole"
            ]
        )
    }

    /// The error of a connection attempt that took longer than its limit.
    ///
    /// - Parameters:
    ///   - origin: Where it was connecting to.
    ///   - timeout: The limit.
    /// - Returns: A `timedOut` error whose description names both.
    static func connectTimeout(_ origin: String, _ timeout: Duration) -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey: "connecting to \(origin) took longer than the limit of "
                    + PipelineMetrics.format(timeout)
            ]
        )
    }

    /// The error of a TLS handshake that did not finish within the connect timeout, which bounds the connection
    /// attempt and its handshake together.
    ///
    /// - Parameters:
    ///   - origin: Where it was connecting to.
    ///   - timeout: The limit.
    /// - Returns: A `timedOut` error whose description names both.
    static func handshakeTimeout(_ origin: String, _ timeout: Duration) -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "the TLS handshake with \(origin) did not finish within the connect timeout of "
                    + PipelineMetrics.format(timeout)
            ]
        )
    }

    /// The error of a proxy's handshake (`CONNECT`, SOCKS5) that did not finish within the connect timeout, which
    /// bounds the connection attempt and its handshakes together.
    ///
    /// - Parameters:
    ///   - origin: Where it was connecting to, and through which proxy.
    ///   - timeout: The limit.
    /// - Returns: A `timedOut` error whose description names both.
    static func proxyHandshakeTimeout(_ origin: String, _ timeout: Duration) -> URLError {
        URLError(
            .timedOut,
            userInfo: [
                NSLocalizedDescriptionKey:
                    "opening the tunnel to \(origin) did not finish within the connect timeout of "
                    + PipelineMetrics.format(timeout)
            ]
        )
    }
}
