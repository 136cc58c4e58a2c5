import SluiceCore

/// Keeps the events it observes, for the tests to read.
final class EventLog: RequestObserver {
    private let recorded = Locked<[RequestEvent]>([])
    private let arriving: AsyncStream<RequestEvent>.Continuation

    /// Every event as it is observed, in order, for a test that waits for an event rather than polls; one task reads
    /// it.
    let arrivals: AsyncStream<RequestEvent>

    init() {
        (arrivals, arriving) = AsyncStream.makeStream()
    }

    var events: [RequestEvent] { recorded.withLock { $0 } }

    func observe(_ event: RequestEvent) {
        recorded.withLock { $0.append(event) }
        arriving.yield(event)
    }
}
