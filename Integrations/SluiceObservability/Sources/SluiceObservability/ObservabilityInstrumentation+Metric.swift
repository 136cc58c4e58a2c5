import SluiceCore

extension ObservabilityInstrumentation {
    /// The name of a metric an ``ObservabilityInstrumentation`` records: OpenTelemetry's where its conventions name one,
    /// `sluice.…` where they do not.
    ///
    /// An open set: compare against the static members.
    public struct Metric: Sendable, Hashable, CustomStringConvertible {
        /// The metric's name, its swift-metrics label.
        public let label: String

        /// `http.client.request.duration`, a `Timer`: each attempt on the wire, from its start to its response's
        /// head, or to its body's end when buffered, by `http.request.method`, `server.address`, `server.port`,
        /// `url.scheme`, `network.protocol.version`, `http.response.status_code` and `error.type`.
        public static let requestDuration = Metric(label: "http.client.request.duration")
        /// `http.client.active_requests`, a `Meter` moved up and down: the requests begun and not ended, by
        /// `http.request.method`, `server.address`, `server.port` and `url.scheme`.
        public static let activeRequests = Metric(label: "http.client.active_requests")
        /// `http.client.open_connections`, a `Meter` moved up and down: the connections of a pool, by
        /// `http.connection.state` (`active`, `idle`), `url.scheme`, `server.address` and `server.port`.
        public static let openConnections = Metric(label: PoolMeasurement.Instrument.openConnections.name)
        /// `http.client.request.time_in_queue`, a `Timer`: how long an attempt waited for a connection of its pool,
        /// by `http.request.method`, `server.address`, `server.port`, `url.scheme` and `network.protocol.version`
        /// (a metric the conventions list as in development).
        public static let timeInQueue = Metric(label: "http.client.request.time_in_queue")
        /// `dns.lookup.duration`, a `Timer`: the name's resolution for a new connection, by `dns.question.name`
        /// (a metric the conventions list as in development).
        public static let dnsLookupDuration = Metric(label: "dns.lookup.duration")
        /// `sluice.http.client.connect.duration`, a `Timer`: the connection's TCP (or Unix socket) connect.
        ///
        /// By `server.address`, `server.port`, `url.scheme` and `network.transport`; the conventions name no such
        /// metric.
        public static let connectDuration = Metric(label: "sluice.http.client.connect.duration")
        /// `sluice.http.client.tls_handshake.duration`, a `Timer`: the connection's TLS handshake.
        ///
        /// By `server.address`, `server.port` and `url.scheme`; the conventions name no such metric.
        public static let tlsHandshakeDuration = Metric(label: "sluice.http.client.tls_handshake.duration")

        /// The metric's name.
        public var description: String { label }
    }

    /// The bucket boundaries the conventions advise for the histograms of the `Timer`s, by label: those of
    /// `http.client.request.duration` (``InstrumentationScope/requestDurationBuckets``, 5 ms to 10 s) for every one.
    ///
    /// swift-metrics leaves a histogram's buckets to its backend: give these to it, as a `[String: [Duration]]` of
    /// buckets by label is what swift-otel's and swift-prometheus's configurations take.
    public static let durationHistogramBuckets: [String: [Duration]] = {
        let buckets = InstrumentationScope.requestDurationBuckets.map { seconds in
            Duration.nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        let timers: [Metric] = [
            .requestDuration, .timeInQueue, .dnsLookupDuration, .connectDuration, .tlsHandshakeDuration,
        ]
        return Dictionary(uniqueKeysWithValues: timers.map { ($0.label, buckets) })
    }()
}
