extension SocketRequestPerformer {
    /// How a ``SocketRequestPerformer`` tries a host's addresses, and how long it keeps them.
    ///
    /// A host name is resolved for both families at once, and its addresses are tried as RFC 8305 ("Happy Eyeballs
    /// Version 2") describes: in the resolver's order with IPv6 and IPv4 interleaved, the first attempt alone for
    /// ``connectionAttemptDelay``, then the next address beside it, and so on, the next one at once when an attempt
    /// fails. The first TCP connection to come up wins and the other attempts are closed; the proxy's and TLS
    /// handshakes follow on the winner. ``Configuration/connectTimeout`` bounds the whole race with its handshakes.
    ///
    /// Resolved addresses are kept for ``cacheLifetime`` by each performer for itself, and a host whose kept addresses
    /// all fail is looked up again at once.
    ///
    /// ```swift
    /// var configuration = SocketRequestPerformer.Configuration()
    /// configuration.addresses.connectionAttemptDelay = .milliseconds(300)
    /// configuration.addresses.cacheLifetime = .zero
    /// let performer = SocketRequestPerformer(configuration: configuration)
    /// ```
    public struct AddressSettings: Sendable, Equatable {
        /// How long a connection attempt runs alone before the next address is tried beside it; 250 ms by default, as
        /// RFC 8305 recommends, and held between the 100 ms and 2 s it recommends at least and at most.
        ///
        /// libcurl waits 200 ms (`CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS`), SwiftNIO 250 ms.
        public var connectionAttemptDelay: Duration
        /// How long a host's resolved addresses are used before it is looked up again; 30 s by default, zero to look
        /// every new connection's host up.
        ///
        /// The system's resolver gives no record's time to live, so this is a fixed time, as libcurl's DNS cache
        /// keeps its answers 60 s and Java's 30 s. A failed lookup is never kept. Lookups of one host under way at
        /// once are shared whatever this says.
        public var cacheLifetime: Duration
        /// The most hosts whose addresses are kept; 256 by default, 0 to keep none.
        public var maximumCachedHosts: Int

        /// Creates settings; every parameter has the default its property documents.
        ///
        /// - Parameters:
        ///   - connectionAttemptDelay: How long an attempt runs alone before the next address is tried; held between
        ///     100 ms and 2 s.
        ///   - cacheLifetime: How long resolved addresses are used.
        ///   - maximumCachedHosts: The most hosts whose addresses are kept.
        public init(
            connectionAttemptDelay: Duration = .milliseconds(250),
            cacheLifetime: Duration = .seconds(30),
            maximumCachedHosts: Int = 256
        ) {
            self.connectionAttemptDelay = HappyEyeballs.clamped(connectionAttemptDelay)
            self.cacheLifetime = max(.zero, cacheLifetime)
            self.maximumCachedHosts = max(0, maximumCachedHosts)
        }
    }
}
