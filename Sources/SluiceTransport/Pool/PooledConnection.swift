/// A connection as its pool holds it, whatever protocol it speaks: how many exchanges it may carry at once, whether it
/// is still good to send on, and how to start, cancel and end them.
///
/// The pool leases its capacity: one exchange at a time for HTTP/1.1 (``HTTP1Connection``), up to the peer's limit for
/// a multiplexed protocol. A connection gives each lease back with ``ConnectionPool/release(_:reusable:idleSince:)``
/// once the exchange is over.
protocol PooledConnection: ReadinessHandler, Sendable {
    /// Where it goes: the pool's key.
    var origin: Origin { get }
    /// The loop its socket is registered on.
    var loop: EventLoop { get }
    /// The most exchanges it carries at once: 1 for HTTP/1.1.
    var capacity: Int { get }
    /// The exchanges leased on it now; read and changed under the pool's lock only.
    var leases: Int { get set }
    /// The pool's eviction timer, while one is set; touched on the loop's thread only.
    var evictionTimer: UInt64? { get set }
    /// Whether an idle connection is still good to send on: not closed, and nothing, not even its end, waits to be
    /// read.
    var isReusable: Bool { get }
    /// When it last became idle, if it is, for the pool's eviction.
    var idleSince: ContinuousClock.Instant? { get }
    /// Its number in the process, for the instrumentation: the same for every exchange it carries.
    var number: UInt64 { get }
    /// The HTTP version it speaks, such as `1.1`.
    var protocolVersion: String { get }
    /// The address its socket is connected to, when known.
    var peer: SocketAddress? { get }

    /// Starts an exchange on a lease just taken from the pool.
    func start(_ exchange: Exchange)
    /// Ends an exchange it carries with a cancellation.
    func cancel(_ exchange: Exchange)
    /// Closes the connection, once, for whoever uses it.
    func close()
    /// Takes no new exchange: closes at once when it carries one at a time, or once the exchanges it carries have
    /// ended when it multiplexes.
    func retire()
}

extension PooledConnection {
    /// Closes the connection: one that carries an exchange at a time has no other to finish.
    func retire() {
        close()
    }

    /// Closes the connection's socket on its loop, where it is deregistered before its descriptor is closed (so that
    /// no other connection can be given the number meanwhile), and lets go of the pool's eviction timer.
    ///
    /// - Parameters:
    ///   - stream: The connection's stream.
    ///   - interest: What the socket was registered for.
    ///   - descriptors: The count of open sockets, which this one leaves.
    func closeSocketOnLoop(_ stream: ByteStream, interest: Interest, descriptors: Gauge) {
        let loop = self.loop
        loop.execute {
            loop.deregister(stream.socket.descriptor, interest: interest)
            stream.close()
            descriptors.add(-1)
            // The pool's eviction timer holds the connection, and with it the TLS objects, until it fires: a closed
            // connection is let go at once.
            if let timer = self.evictionTimer {
                loop.cancelTimer(timer)
                self.evictionTimer = nil
            }
        }
    }
}

/// The numbers of the connections of the process, whatever their protocol.
enum PooledConnections {
    private static let counter = AtomicCount()

    /// The next connection's number: 1 for the first of the process.
    static func nextNumber() -> UInt64 {
        UInt64(counter.add(1))
    }
}
