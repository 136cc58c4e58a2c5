extension HTTPBody {
    /// This body, with every chunk its reader asks for read through `step` from this body's iterator: how a
    /// decorator counts, times or reports a streamed body without holding it.
    ///
    /// The relayed body keeps this one's expected length. Only the relayed body's iterator holds this body once
    /// reading starts, so `step` ends the transfer early by replacing the iterator it is given (with
    /// ``HTTPBody/AsyncIterator/finished``), and dropping or cancelling the relayed body ends it as it ends this one.
    ///
    /// - Parameter step: Reads the next chunk from the iterator, or returns `nil` at the end.
    /// - Returns: The relayed body.
    func relayed(_ step: @escaping @Sendable (inout AsyncIterator) async throws -> Data?) -> HTTPBody {
        HTTPBody(Relay(base: Locked(self), step: step), expectedLength: expectedLength)
    }
}

extension HTTPBody.AsyncIterator {
    /// An iterator at its end, to put in place of one whose transfer is to end.
    static var finished: HTTPBody.AsyncIterator {
        HTTPBody(Data()).makeAsyncIterator()
    }
}

/// The chunks of a relayed body.
private struct Relay: AsyncSequence, Sendable {
    typealias Element = Data

    /// The body relayed, given up to the iterator when reading starts (a body is read once), so that the iterator
    /// alone holds its transfer.
    let base: Locked<HTTPBody?>
    let step: @Sendable (inout HTTPBody.AsyncIterator) async throws -> Data?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPBody.AsyncIterator
        let step: @Sendable (inout HTTPBody.AsyncIterator) async throws -> Data?

        mutating func next() async throws -> Data? {
            try await step(&base)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let body = base.withLock { body in
            defer { body = nil }
            return body
        }
        return AsyncIterator(base: body?.makeAsyncIterator() ?? .finished, step: step)
    }
}
