extension SocketRequestPerformer {
    /// Creates a performer with its own pool of connections, whose own work goes to `instrumentation`: its changes in
    /// open and idle connections per origin, as ``PoolMeasurement``s, and its connections opened and closed, as log
    /// records of ``LogRecord/Activity/pool``.
    ///
    /// The pool works for no request in particular (it evicts an idle connection, it counts connections across the
    /// requests of every client that uses the performer), so what it does goes to the performer's instrumentation;
    /// what a request does (its scopes, its own records) goes to its client's. Give both the same one:
    ///
    /// ```swift
    /// let transport = SocketRequestPerformer(instrumentation: instrumentation)
    /// let client = APIClient(requestPerformer: transport, instrumentation: instrumentation)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: Limits, timeouts and the fallback; the defaults suit most services.
    ///   - instrumentation: Receives the pool's measurements and records.
    public convenience init(
        configuration: Configuration = Configuration(),
        instrumentation: any RequestInstrumentation
    ) {
        self.init(configuration: configuration, poolEvents: PoolInstrumentation(instrumentation: instrumentation))
    }
}

/// Turns what a pool reports into the measurements and log records of its performer's instrumentation.
struct PoolInstrumentation: PoolEventSink {
    let instrumentation: any RequestInstrumentation

    func poolEvent(_ event: PoolEvent) {
        let now = ContinuousClock.now
        var origin = InstrumentationScope.Attributes()
        origin[.urlScheme] = .string(event.scheme)
        origin[.serverAddress] = .string(event.host)
        if let port = event.port {
            origin[.serverPort] = .int(port)
        }
        for (state, change) in [("active", event.activeChange), ("idle", event.idleChange)] where change != 0 {
            var attributes = InstrumentationScope.Attributes()
            attributes[.httpConnectionState] = .string(state)
            for attribute in origin {
                attributes[attribute.key] = attribute.value
            }
            instrumentation.record(
                PoolMeasurement(.openConnections, change: change, attributes: attributes, instant: now)
            )
        }
        guard let message = PoolInstrumentation.message(of: event.kind),
            let level = instrumentation.logLevel, level <= .debug
        else { return }
        var metadata = origin
        if let connection = event.connection {
            metadata[.connectionID] = .int(Int(truncatingIfNeeded: connection))
        }
        if let version = event.protocolVersion {
            metadata[.networkProtocolVersion] = .string(version)
        }
        if event.kind == .closedIdle {
            metadata[.connectionCount] = .int(event.count)
        }
        instrumentation.log(LogRecord(.debug, message, metadata: metadata, activity: .pool, instant: now))
    }

    /// The message of an event's record; `nil` for an event that only changes the counts.
    static func message(of kind: PoolEvent.Kind) -> LogRecord.Message? {
        switch kind {
        case .opened: .connectionOpened
        case .closed: .connectionClosed
        case .evicted: .idleConnectionEvicted
        case .closedByServer: .idleConnectionClosedByServer
        case .closedIdle: .idleConnectionsClosed
        case .counts: nil
        }
    }
}
