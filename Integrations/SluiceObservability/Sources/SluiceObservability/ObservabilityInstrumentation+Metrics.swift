import Metrics
import SluiceCore

extension ObservabilityInstrumentation {
    /// The factory of the metrics, or `nil` for swift-metrics' no-op handler (a process's until it bootstraps a
    /// backend): a metric that records nothing is not made, nor are the attributes of its dimensions read.
    private var factory: (any MetricsFactory)? {
        let factory = metricsFactory ?? MetricsSystem.factory
        return factory is NOOPMetricsHandler ? nil : factory
    }

    /// The active requests' meter of a request's scope, by the attributes it began with; `nil` with no metrics.
    func activeRequests(of scope: InstrumentationScope) -> Meter? {
        guard let factory else { return nil }
        let attributes = scope.attributes
        return Meter(
            label: Metric.activeRequests.label,
            dimensions: Self.dimensions(
                [.httpRequestMethod, .serverAddress, .serverPort],
                of: attributes,
                scheme: Self.scheme(of: attributes)
            ),
            factory: factory
        )
    }

    /// Records what a scope measured when it ends: an attempt's duration, a connection phase's, and a request no
    /// longer active.
    func recordMetrics(of scope: InstrumentationScope) {
        switch scope.kind {
        case .request:
            (scope.state as? ScopeState)?.activeRequests?.decrement()
        case .attempt:
            guard let factory, let end = scope.end else { return }
            let attributes = scope.attributes
            let keys: [InstrumentationScope.Key] = [
                .httpRequestMethod, .serverAddress, .serverPort, .networkProtocolVersion, .httpResponseStatusCode,
                .errorType,
            ]
            timer(.requestDuration, Self.dimensions(keys, of: attributes, scheme: Self.scheme(of: attributes)), factory)
                .recordNanoseconds(Self.nanoseconds(from: scope.start, to: end))
        case .connection:
            recordPhase(scope)
        default:
            break
        }
    }

    /// Records a connection's phase, with the dimensions of its connection and attempt.
    private func recordPhase(_ scope: InstrumentationScope) {
        guard let factory, let end = scope.end, let connection = scope.parent, let attempt = connection.parent else {
            return
        }
        let own = attempt.attributes
        let scheme = Self.scheme(of: own)
        let dimensions: [(String, String)]
        let metric: Metric
        switch scope.name {
        case "queue":
            metric = .timeInQueue
            var merged = own
            merged[.networkProtocolVersion] = connection.attributes[.networkProtocolVersion]
            dimensions = Self.dimensions(
                [.httpRequestMethod, .serverAddress, .serverPort, .networkProtocolVersion],
                of: merged,
                scheme: scheme
            )
        case "dns":
            metric = .dnsLookupDuration
            dimensions = own[.serverAddress].map { [("dns.question.name", $0.description)] } ?? []
        case "connect":
            metric = .connectDuration
            var merged = own
            merged[.networkTransport] = connection.attributes[.networkTransport]
            dimensions = Self.dimensions([.serverAddress, .serverPort, .networkTransport], of: merged, scheme: scheme)
        case "tls":
            metric = .tlsHandshakeDuration
            dimensions = Self.dimensions([.serverAddress, .serverPort], of: own, scheme: scheme)
        default:
            return
        }
        timer(metric, dimensions, factory).recordNanoseconds(Self.nanoseconds(from: scope.start, to: end))
    }

    /// Moves the pool's up-down counter by a measurement's change.
    func recordPool(_ measurement: PoolMeasurement) {
        guard let factory else { return }
        let meter = Meter(
            label: measurement.instrument.name,
            dimensions: measurement.attributes.map { ($0.key.name, $0.value.description) },
            factory: factory
        )
        if measurement.change >= 0 {
            meter.increment(by: Double(measurement.change))
        } else {
            meter.decrement(by: Double(measurement.change.magnitude))
        }
    }

    private func timer(_ metric: Metric, _ dimensions: [(String, String)], _ factory: any MetricsFactory) -> Timer {
        Timer(label: metric.label, dimensions: dimensions, factory: factory)
    }

    /// The dimensions of a metric: the attributes under `keys` that are set, as text, then `url.scheme`.
    private static func dimensions(
        _ keys: [InstrumentationScope.Key],
        of attributes: InstrumentationScope.Attributes,
        scheme: String?
    ) -> [(String, String)] {
        var dimensions: [(String, String)] = []
        dimensions.reserveCapacity(keys.count + 1)
        for key in keys {
            if let value = attributes[key] {
                dimensions.append((key.name, value.description))
            }
        }
        if let scheme {
            dimensions.append((InstrumentationScope.Key.urlScheme.name, scheme))
        }
        return dimensions
    }

    /// The scheme of a scope's `url.full`, such as `https`.
    private static func scheme(of attributes: InstrumentationScope.Attributes) -> String? {
        guard case .string(let url)? = attributes[.urlFull] else { return nil }
        // The two schemes nearly every request has, without making a new string for each request.
        if url.hasPrefix("https:") {
            return "https"
        }
        if url.hasPrefix("http:") {
            return "http"
        }
        guard let colon = url.firstIndex(of: ":") else { return nil }
        return url[..<colon].lowercased()
    }

    /// The nanoseconds between two instants, 0 for an end before the start.
    private static func nanoseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = start.duration(to: end).components
        guard seconds >= 0 else { return 0 }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
