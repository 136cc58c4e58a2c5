extension HTTPBody {
    /// This body, with every chunk its reader asks for read through `step` from this body's iterator: how a
    /// decorator counts, times or reports a streamed body without holding it.
    ///
    /// The relayed body keeps this one's expected length and reports its trailers. Only the relayed body's iterator
    /// holds this body and `step` once reading starts, so `step` ends the transfer early by replacing the iterator it
    /// is given (with ``HTTPBody/AsyncIterator/finished``), and dropping or cancelling the relayed body ends it as it
    /// ends this one.
    /// What `step` captures is released with the iterator, when its reader is done with it (a loop left early
    /// included), even while the relayed body itself is still held; or with the relayed body, when it is released
    /// unread. A decorator that must know when reading ends, however it ends, captures an object that says so when
    /// it is released.
    ///
    /// - Parameter step: Reads the next chunk from the iterator, or returns `nil` at the end.
    /// - Returns: The relayed body.
    package func relayed(_ step: @escaping @Sendable (inout AsyncIterator) async throws -> Data?) -> HTTPBody {
        HTTPBody(Relay(parts: Locked((self, step))), expectedLength: expectedLength).reportingTrailers(of: self)
    }
}

extension HTTPBody.AsyncIterator {
    /// An iterator at its end, to put in place of one whose transfer is to end.
    package static var finished: HTTPBody.AsyncIterator {
        HTTPBody(Data()).makeAsyncIterator()
    }
}

/// The chunks of a relayed body.
private struct Relay: AsyncSequence, Sendable {
    typealias Element = Data
    typealias Step = @Sendable (inout HTTPBody.AsyncIterator) async throws -> Data?

    /// The body relayed and the step, given up to the iterator when reading starts (a body is read once), so that
    /// the iterator alone holds the transfer and what the step captures, and releases them when it goes.
    let parts: Locked<(base: HTTPBody, step: Step)?>

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let step: Step

        mutating func next() async throws -> Data? {
            try await step(&base)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let parts = self.parts.withLock { parts in
            defer { parts = nil }
            return parts
        }
        guard let parts else {
            // Not reached: the relayed body hands out one iterator. One made again would read nothing.
            return AsyncIterator(base: .finished, step: { try await $0.next() })
        }
        return AsyncIterator(base: parts.base.makeAsyncIterator(), step: parts.step)
    }
}
