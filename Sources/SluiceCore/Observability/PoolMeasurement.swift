/// A change in what a connection pool holds, as a ``RequestInstrumentation`` receives it in
/// ``RequestInstrumentation/record(_:)``: what only the pool knows, for the metrics a request's scopes cannot give.
///
/// Each measurement is a change of an up-down counter, OpenTelemetry's `http.client.open_connections`, by
/// ``InstrumentationScope/Key/httpConnectionState`` (`active` or `idle`) and origin (``InstrumentationScope/Key/urlScheme``,
/// ``InstrumentationScope/Key/serverAddress``, ``InstrumentationScope/Key/serverPort``): the sum of the changes for one
/// set of attributes is the count of such connections now. A connection that is being opened counts as active.
///
/// The request's metrics come from its scopes: `http.client.request.duration` from each attempt's start and end
/// (with the buckets of ``InstrumentationScope/requestDurationBuckets``), active requests from the request scopes
/// begun and not ended, and the connection's phases (queued, DNS, connect, TLS) from its connection scopes.
public struct PoolMeasurement: Sendable, Hashable {
    /// What is measured.
    ///
    /// An open set: compare against the static members.
    public struct Instrument: Sendable, Hashable, CustomStringConvertible {
        /// The instrument's name, such as `http.client.open_connections`.
        public let name: String

        /// `http.client.open_connections`: the connections open, as an up-down counter of connections.
        public static let openConnections = Instrument(name: "http.client.open_connections")

        /// The instrument's name.
        public var description: String { name }
    }

    /// What is measured.
    public var instrument: Instrument
    /// How much it changed: positive for more, negative for fewer.
    public var change: Int
    /// The attributes of the counter that changed.
    public var attributes: InstrumentationScope.Attributes
    /// When it changed.
    public var instant: ContinuousClock.Instant

    /// Creates a measurement.
    ///
    /// - Parameters:
    ///   - instrument: What is measured.
    ///   - change: How much it changed.
    ///   - attributes: The attributes of the counter that changed.
    ///   - instant: When it changed; now by default.
    public init(
        _ instrument: Instrument,
        change: Int,
        attributes: InstrumentationScope.Attributes,
        instant: ContinuousClock.Instant = .now
    ) {
        self.instrument = instrument
        self.change = change
        self.attributes = attributes
        self.instant = instant
    }
}
