/// What the pool and the connector note of how one attempt had its connection, when an instrumentation listens:
/// the phases it went through and the connection it took, for its ``ConnectionReport``.
final class ConnectionTimings: Sendable {
    private struct State {
        var queued: ConnectionReport.Phase?
        var dns: ConnectionReport.Phase?
        var connect: ConnectionReport.Phase?
        var tls: ConnectionReport.Phase?
        var reused = true
    }

    /// When the attempt asked for a connection.
    let requested = ContinuousClock.now
    private let state = Locked(State())

    func noteQueued(_ phase: ConnectionReport.Phase) {
        state.withLock { $0.queued = phase }
    }

    func noteDNS(_ phase: ConnectionReport.Phase) {
        state.withLock { $0.dns = phase }
    }

    /// Notes a new connection's establishment: from its start to the TCP connection (and the proxy's tunnel), then
    /// the TLS handshake to `ready` where it uses TLS.
    func noteEstablished(
        start: ContinuousClock.Instant,
        connected: ContinuousClock.Instant,
        ready: ContinuousClock.Instant,
        usesTLS: Bool
    ) {
        state.withLock { state in
            state.reused = false
            state.connect = (start, connected)
            state.tls = usesTLS ? (connected, ready) : nil
        }
    }

    /// The report of the connection the attempt took, now ready.
    func report(for connection: any PooledConnection) -> ConnectionReport {
        state.withLock { state in
            var report = ConnectionReport(
                requested: requested,
                ready: .now,
                reused: state.reused,
                id: connection.number,
                protocolVersion: connection.protocolVersion,
                transport: connection.peer.map { if case .unix = $0 { "unix" } else { "tcp" } } ?? "tcp"
            )
            if let peer = connection.peer {
                if case .unix(let path) = peer {
                    report.peerAddress = path
                } else {
                    report.peerAddress = peer.host
                    report.peerPort = peer.port
                }
            }
            report.queued = state.queued
            report.dns = state.dns
            report.connect = state.connect
            report.tls = state.tls
            return report
        }
    }
}
