/// How an attempt had its connection, as the transport reports it: from the pool or made new, the phases and when
/// each ran, and where it goes.
package struct ConnectionReport: Sendable {
    /// A phase's start and end.
    package typealias Phase = (start: ContinuousClock.Instant, end: ContinuousClock.Instant)

    /// When the attempt asked for a connection.
    package var requested: ContinuousClock.Instant
    /// When it had one, ready to write to.
    package var ready: ContinuousClock.Instant
    /// Whether it was a kept-alive connection from the pool.
    package var reused: Bool
    /// The connection's number in the process.
    package var id: UInt64
    /// The HTTP version it speaks, such as `1.1`.
    package var protocolVersion: String
    /// The address it goes to: an IP address, or a Unix socket's path; `nil` when unknown.
    package var peerAddress: String?
    /// The port it goes to, for TCP.
    package var peerPort: Int?
    /// `tcp` or `unix`.
    package var transport: String
    /// The time spent waiting for a connection of the origin to be released, when every one was busy.
    package var queued: Phase?
    /// The name's lookup, for a new connection to a host name whose addresses the transport did not keep.
    package var dns: Phase?
    /// The TCP connection to the address, with any proxy tunnel, for a new connection.
    package var connect: Phase?
    /// The TLS handshake, for a new TLS connection.
    package var tls: Phase?

    package init(
        requested: ContinuousClock.Instant,
        ready: ContinuousClock.Instant,
        reused: Bool,
        id: UInt64,
        protocolVersion: String,
        transport: String
    ) {
        self.requested = requested
        self.ready = ready
        self.reused = reused
        self.id = id
        self.protocolVersion = protocolVersion
        self.transport = transport
    }
}
