import SluiceCore

/// Keeps the events it observes, for the tests to read.
final class EventLog: RequestObserver {
    private let recorded = Locked<[RequestEvent]>([])

    var events: [RequestEvent] { recorded.withLock { $0 } }

    func observe(_ event: RequestEvent) {
        recorded.withLock { $0.append(event) }
    }
}
