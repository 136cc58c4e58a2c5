/// Publishes a repository's events to any number of subscribers, each with a bounded buffer.
///
/// A subscriber that falls behind loses its oldest undelivered events, never blocks the publisher, and never
/// holds more than its buffer; the events' sequence numbers show the gap. A subscriber whose stream terminates
/// (its loop ended or its task was cancelled) is removed.
final class EventHub: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<RepositoryEvent>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var nextSequence: UInt64 = 0
    }

    private let state = Locked(State())

    /// The number of current subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Subscribes now: the stream receives every event published from this moment.
    func subscribe(bufferSize: Int) -> AsyncStream<RepositoryEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: RepositoryEvent.self,
            bufferingPolicy: .bufferingNewest(max(1, bufferSize))
        )
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Numbers an event and hands it to every subscriber, in the same order for all.
    func publish(_ make: (UInt64) -> RepositoryEvent) {
        state.withLock { state in
            state.nextSequence += 1
            let event = make(state.nextSequence)
            for continuation in state.subscribers.values {
                continuation.yield(event)
            }
        }
    }

    deinit {
        for continuation in state.withLock({ $0.subscribers.values }) {
            continuation.finish()
        }
    }
}
