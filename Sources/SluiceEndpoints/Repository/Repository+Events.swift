extension Repository {
    /// The events of a ``Repository``, as ``Repository/events`` returns them: each loop over them is one subscriber.
    ///
    /// ```swift
    /// let events = repository.events
    /// Task {
    ///     for await event in events {
    ///         print(event)
    ///     }
    /// }
    /// ```
    ///
    /// The subscription belongs to the loop's iterator, not to this value. The value subscribes when it is created, so
    /// that the first loop over it sees every event from that moment, and hands that subscription to the first iterator
    /// made from it; every later iterator subscribes when it is made. A subscription ends, and stops buffering, when its
    /// iterator is released (its loop ended, by `break`, `return` or an error), when its task is cancelled, or when the
    /// repository is released; a value kept after its loop ended holds no subscription. A value dropped before any loop
    /// ends its first subscription too.
    ///
    /// Each subscriber's buffer holds ``Repository/eventBufferSize`` events; one that falls behind loses its oldest
    /// undelivered events, and the events' sequence numbers show the gap.
    public struct Events: AsyncSequence, Sendable {
        /// The element: one event.
        public typealias Element = Repository.Event

        private struct Source {
            weak var hub: EventHub?
            var unclaimed: EventSubscription?
        }

        private let source: Locked<Source>
        private let bufferSize: Int

        /// Subscribes to a hub now, for the first iterator.
        init(hub: EventHub, bufferSize: Int) {
            self.bufferSize = bufferSize
            source = Locked(Source(hub: hub, unclaimed: hub.subscribe(bufferSize: bufferSize)))
        }

        /// Creates an iterator that owns a subscription: the one made with this value for the first iterator, a new
        /// one, starting now, for every later iterator.
        ///
        /// - Returns: The iterator; the subscription ends when it is released.
        public func makeAsyncIterator() -> Iterator {
            let subscription = source.withLock { source in
                if let first = source.unclaimed {
                    source.unclaimed = nil
                    return first
                }
                return source.hub?.subscribe(bufferSize: bufferSize) ?? EventSubscription.ended()
            }
            return Iterator(subscription: subscription)
        }

        /// Delivers the events of one subscription, which ends when the iterator is released.
        public struct Iterator: AsyncIteratorProtocol {
            private let subscription: EventSubscription
            private var events: AsyncStream<Repository.Event>.Iterator

            init(subscription: EventSubscription) {
                self.subscription = subscription
                events = subscription.stream.makeAsyncIterator()
            }

            /// The next event, waiting for it if none is buffered.
            ///
            /// - Returns: The event, or `nil` once the task is cancelled or the repository is released.
            public mutating func next() async -> Repository.Event? {
                await events.next()
            }

            /// The next event, waiting for it on the caller's actor if none is buffered.
            ///
            /// - Parameter actor: The caller's actor, which the wait does not leave.
            /// - Returns: The event, or `nil` once the task is cancelled or the repository is released.
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
            public mutating func next(isolation actor: isolated (any Actor)?) async -> Repository.Event? {
                await events.next(isolation: actor)
            }
        }
    }
}

// An iterator is one loop's cursor over its subscription's buffer, as `AsyncStream`'s is: not for sharing.
@available(*, unavailable)
extension Repository.Events.Iterator: Sendable {}
