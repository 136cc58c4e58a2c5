/// Publishes a repository's events to any number of subscribers, each with a bounded buffer.
///
/// A subscriber that falls behind loses its oldest undelivered events, never blocks the publisher, and never
/// holds more than its buffer; the events' sequence numbers show the gap. A subscriber is removed when its
/// ``EventSubscription`` is released or its stream terminates (its task was cancelled).
final class EventHub: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<Repository.Event>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var nextSequence: UInt64 = 0
    }

    private let state = Locked(State())

    /// The number of current subscribers.
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Subscribes now: the subscription's stream receives every event published from this moment until the
    /// subscription is released.
    func subscribe(bufferSize: Int) -> EventSubscription {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Repository.Event.self,
            bufferingPolicy: .bufferingNewest(max(1, bufferSize))
        )
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        // Runs synchronously inside `finish()` and inside the cancellation of a task waiting for an event.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return EventSubscription(stream: stream, continuation: continuation)
    }

    /// Numbers an event and hands it to every subscriber, in the same order for all.
    func publish(_ make: (UInt64) -> Repository.Event) {
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

/// One subscriber's buffer of events, registered with an ``EventHub`` for as long as the subscription is alive.
final class EventSubscription: Sendable {
    /// The events published since the subscription began, up to its buffer size.
    let stream: AsyncStream<Repository.Event>
    private let continuation: AsyncStream<Repository.Event>.Continuation

    init(stream: AsyncStream<Repository.Event>, continuation: AsyncStream<Repository.Event>.Continuation) {
        self.stream = stream
        self.continuation = continuation
    }

    /// A subscription that has already ended, for a hub that no longer exists.
    static func ended() -> EventSubscription {
        let (stream, continuation) = AsyncStream.makeStream(of: Repository.Event.self)
        continuation.finish()
        return EventSubscription(stream: stream, continuation: continuation)
    }

    /// Ends the subscription: finishing the stream removes it from its hub.
    deinit {
        continuation.finish()
    }
}
