/// What a pool did on its own, outside any request's attempt, as it reports it to the instrumentation its performer
/// was given: a connection opened or closed, and how its counts of active and idle connections to an origin changed.
package struct PoolEvent: Sendable {
    /// What happened.
    package enum Kind: Sendable, Hashable {
        /// A connection was opened, for an attempt that found none to spare.
        case opened
        /// A connection was closed after an exchange that left it unfit to carry another.
        case closed
        /// An idle connection was closed after the idle timeout.
        case evicted
        /// An idle connection was closed because the server closed it, or sent what nobody asked for.
        case closedByServer
        /// Idle connections were closed when the performer was asked to close them, or was released.
        case closedIdle
        /// Only the counts changed.
        case counts
    }

    /// What happened.
    package var kind: Kind
    /// The host, or a Unix socket's path.
    package var host: String
    /// The port, for TCP.
    package var port: Int?
    /// `https` for an origin reached with TLS, `http` otherwise.
    package var scheme: String
    /// The connection's number, for an event about one connection.
    package var connection: UInt64?
    /// The HTTP version the connection speaks, for an event about one connection.
    package var protocolVersion: String?
    /// How many more connections to the origin carry an exchange (or connect for one); negative for fewer.
    package var activeChange = 0
    /// How many more connections to the origin are idle; negative for fewer.
    package var idleChange = 0
    /// How many connections the event is about: 1, or those ``Kind/closedIdle`` closed.
    package var count = 1

    /// An event about an origin.
    init(_ kind: Kind, origin: Origin, connection: (any PooledConnection)? = nil) {
        self.kind = kind
        switch origin.address {
        case .tcp(let host, let port):
            self.host = host
            self.port = port
        case .unix(let path):
            self.host = path
        }
        scheme = origin.usesTLS ? "https" : "http"
        self.connection = connection?.number
        protocolVersion = connection?.protocolVersion
    }
}

/// Receives what a pool did on its own: the instrumentation of the performer that owns it.
package protocol PoolEventSink: Sendable {
    /// Receives one event, on the thread where the pool did what it reports, outside the pool's lock.
    ///
    /// - Parameter event: The event.
    func poolEvent(_ event: PoolEvent)
}
