import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import TestSupport
import Testing

/// The transports the transport suites run against: URLSession's, Sluice's own over plain TCP, and Sluice's own inside
/// TLS, through a ``TLSRelay`` in front of the loopback server.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case sockets
    case socketsOverTLS

    /// Every kind, Sluice's own inside TLS only where the relay can run: its tests are skipped, as the relay's own are,
    /// where socat or openssl is missing and the peers are not required.
    static var allCases: [TransportKind] {
        tlsRelayPresent ? [.urlSession, .sockets, .socketsOverTLS] : plainCases
    }

    /// The kinds over plain TCP, for suites against a server that is not the loopback server (nginx, whose own TLS
    /// site has tests of its own).
    static let plainCases: [TransportKind] = [.urlSession, .sockets]

    /// The kinds that are Sluice's own transport, for the suites of what only it does.
    static var socketCases: [TransportKind] {
        allCases.filter { $0 != .urlSession }
    }

    var testDescription: String { rawValue }

    /// A performer of this kind with room for fifty connections to one host and the given limits.
    ///
    /// - Parameters:
    ///   - maximumBodySize: The largest buffered body.
    ///   - streamBufferLimit: For URLSession, the most bytes held for a reader that is behind; for the sockets, the
    ///     bytes read ahead of it.
    /// - Returns: The performer.
    func makePerformer(maximumBodySize: Int = 64 << 20, streamBufferLimit: Int = 64 << 20) -> any RequestPerformer {
        switch self {
        case .urlSession:
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 50
            return NetworkRequestPerformer(
                configuration: configuration,
                maximumBodySize: maximumBodySize,
                streamBufferLimit: streamBufferLimit
            )
        case .sockets, .socketsOverTLS:
            return makeSocketPerformer(
                configuration: SocketRequestPerformer.Configuration(
                    maximumConnectionsPerOrigin: 50,
                    maximumBodySize: maximumBodySize,
                    streamReadAhead: min(streamBufferLimit, 256 << 10)
                )
            )
        }
    }

    /// A client on this kind's transport; for ``sockets``, `APIClient()`, whose default transport is Sluice's own on
    /// Linux.
    ///
    /// - Returns: The client.
    func makeClient() -> APIClient {
        self == .sockets ? APIClient() : APIClient(requestPerformer: makePerformer())
    }

    /// Sluice's own transport with a configuration; for ``socketsOverTLS``, one that trusts the root of the test
    /// certificates (the test fails when they could not be made, or ``origin(of:)`` has not made them yet) and never
    /// falls back to URLSession.
    ///
    /// - Parameter configuration: The configuration, over plain TCP.
    /// - Returns: The performer.
    func makeSocketPerformer(
        configuration: SocketRequestPerformer.Configuration = .init()
    ) -> SocketRequestPerformer {
        var configuration = configuration
        if self == .socketsOverTLS {
            switch TestPKI.madeAlready {
            case .success(let pki)?:
                configuration.tls.additionalTrustRoots = [.file(pki.root.path)]
            case .failure(let error)?:
                Issue.record("the test certificates could not be made: \(error)")
            case nil:
                Issue.record("the test certificates are not made: await origin(of:) first, or openssl is missing")
            }
            // Nothing may reach URLSession unnoticed: a request it cannot send itself fails.
            configuration.fallback = NoFallback()
        }
        return SocketRequestPerformer(configuration: configuration)
    }

    /// The loopback server as this kind reaches it: itself, or a TLS relay started in front of it.
    ///
    /// The certificates are made and the relay started off the cooperative pool, as the other peers are: dozens of TLS
    /// cases start at once, and each waits for openssl or socat, which would hold the pool's few threads meanwhile.
    ///
    /// - Parameter server: The server.
    /// - Returns: Its origin, which keeps the relay running while it lives.
    /// - Throws: When the test certificates could not be made or socat did not start.
    func origin(of server: LoopbackServer) async throws -> LoopbackOrigin {
        guard self == .socketsOverTLS else { return LoopbackOrigin(server: server, relay: nil) }
        let pki = try await requirePKI()
        let port = server.baseURL.port ?? 0
        let relay = try await offThePool { try TLSRelay(upstreamPort: port, chain: pki.good.chain, key: pki.good.key) }
        return LoopbackOrigin(server: server, relay: relay)
    }
}

/// A loopback server as a transport kind reaches it: over plain TCP, or inside TLS through a relay that passes its
/// bytes on as they are, so that its scripted faults reach the client inside TLS.
///
/// The relay runs while the origin lives: keep the origin until the test's last request has ended.
struct LoopbackOrigin: Sendable {
    /// The server behind it.
    let server: LoopbackServer
    /// The relay in front of the server, for Sluice's own transport inside TLS.
    let relay: TLSRelay?

    /// The URL of a path: the server's, or `https://localhost:<relay port><path>`.
    ///
    /// - Parameter pathAndQuery: The path, with its leading `/`, and any query.
    /// - Returns: The URL.
    func url(_ pathAndQuery: String) -> URL {
        relay?.url(pathAndQuery) ?? server.url(pathAndQuery)
    }

    /// The URL of its root, without a trailing `/`, as ``LoopbackServer/baseURL`` is.
    var baseURL: URL {
        relay.map { URL(string: "https://localhost:\($0.port)") ?? server.baseURL } ?? server.baseURL
    }

    /// `host:port` as the transport names the origin in its messages and pool.
    var hostAndPort: String {
        "\(baseURL.host ?? ""):\(baseURL.port ?? 0)"
    }

    /// A request to a path.
    ///
    /// - Parameters:
    ///   - path: The path, with its leading `/`, and any query.
    ///   - method: The method.
    ///   - body: The body, if any.
    /// - Returns: The request.
    func request(_ path: String, method: String = "GET", body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: url(path))
        request.httpMethod = method
        request.httpBody = body
        return request
    }
}

/// The requests a performer is carrying: URLSession's tasks not yet ended, or Sluice's own connections carrying one.
///
/// - Parameter performer: A performer made by ``TransportKind/makePerformer(maximumBodySize:streamBufferLimit:)``.
/// - Returns: The count; 0 when nothing is left behind.
func requestsInFlight(_ performer: any RequestPerformer) -> Int {
    requestsInFlightGauge(performer).value
}

/// The gauge that counts ``requestsInFlight(_:)``, to await.
///
/// - Parameter performer: A performer made by ``TransportKind/makePerformer(maximumBodySize:streamBufferLimit:)``.
/// - Returns: The performer's gauge; for any other performer, one that stays at 0.
func requestsInFlightGauge(_ performer: any RequestPerformer) -> Gauge {
    if let performer = performer as? NetworkRequestPerformer {
        return performer.requestsInFlightGauge
    }
    if let performer = performer as? SocketRequestPerformer {
        return performer.requestsInFlightGauge
    }
    return Gauge()
}
