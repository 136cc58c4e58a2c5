/// The typed elements of a streamed response (lines, server-sent events, JSON Lines records) as they arrive.
///
/// A ``Client`` returns one from ``Client/lines(_:maximumLength:)``, ``Client/events(_:reconnecting:clock:)`` and
/// ``Client/jsonLines(_:of:decoder:maximumLineLength:)``, once the response's head has arrived with an accepted
/// status. Every error it throws is a ``SluiceError``:
///
/// - the transport stage, with the bytes that arrived, when the connection fails or is cut;
/// - the deserialize stage for a line past its limit, an event past its limit, or a JSON Lines line that is not
///   JSON; the parse stage for a record of the wrong shape. The ``StreamParseError`` underneath names the line.
///
/// Like the body it reads, it is read once. The request ends when its reading ends: at the end of the stream, at its
/// error, or when the loop that reads it is left early (the iterator is released), even while the stream value is
/// still held; or when the stream is released unread. The observers' finish event is sent then, once.
public struct ResponseStream<Element: Sendable>: AsyncSequence, Sendable {
    /// What reading the stream throws.
    public typealias Failure = SluiceError

    /// The head of the response the stream reads (its body empty); for a stream that reconnects, the first one's.
    public let response: HTTPResponse

    private let makeIterator: @Sendable () -> AsyncIterator

    /// Creates a stream from a head and what makes its iterator.
    ///
    /// - Parameters:
    ///   - response: The head of the response.
    ///   - makeIterator: Makes the one iterator.
    init(response: HTTPResponse, makeIterator: @escaping @Sendable () -> AsyncIterator) {
        self.response = response
        self.makeIterator = makeIterator
    }

    /// Makes the iterator over the elements.
    ///
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> AsyncIterator {
        makeIterator()
    }

    /// Iterates over the elements of a response stream.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private let nextElement: () async throws(SluiceError) -> Element?

        init(next: @escaping () async throws(SluiceError) -> Element?) {
            nextElement = next
        }

        /// The next element, or `nil` at the end of the stream.
        ///
        /// - Returns: The element, or `nil`.
        /// - Throws: ``SluiceError`` naming the stage that failed.
        public mutating func next() async throws(SluiceError) -> Element? {
            try await nextElement()
        }

        /// The next element, or `nil` at the end of the stream.
        ///
        /// - Parameter actor: The actor the caller runs on.
        /// - Returns: The element, or `nil`.
        /// - Throws: ``SluiceError`` naming the stage that failed.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(SluiceError) -> Element? {
            try await nextElement()
        }
    }

    /// A stream that reads the typed elements of a body.
    ///
    /// - Parameters:
    ///   - head: The streamed response.
    ///   - elements: The typed elements read from its body.
    /// - Returns: The stream, its errors made ``SluiceError``s.
    static func reading<S: AsyncSequence & Sendable>(
        _ head: HTTPResponse.Streamed,
        _ elements: S
    ) -> ResponseStream<Element> where S.Element == Element {
        let response = HTTPResponse(status: head.status, headers: head.headers, url: head.url)
        return ResponseStream(response: response) {
            var iterator = elements.makeAsyncIterator()
            return AsyncIterator { () async throws(SluiceError) -> Element? in
                do {
                    return try await iterator.next()
                } catch {
                    throw ResponseStream.streamError(error, response: response)
                }
            }
        }
    }

    /// What a typed stream threw, as a ``SluiceError``: a stream parse error in the deserialize or parse stage with
    /// its line, a cancellation as ``SluiceError/Code/cancelled``; a ``SluiceError`` from the body as it is.
    static func streamError(_ error: any Error, response: HTTPResponse) -> SluiceError {
        switch error {
        case let error as SluiceError:
            return error
        case let parseError as StreamParseError:
            let stage: SluiceError.Stage = parseError.code == .decodingFailed ? .parse : .deserialize
            let code: SluiceError.Code = stage == .parse ? .parse : .deserialize
            let namesLine = parseError.code == .lineTooLong || parseError.code == .eventTooLarge
            return SluiceError(
                code,
                stage: stage,
                message: namesLine ? parseError.message : "stream line \(parseError.line): \(parseError.message)",
                response: response,
                underlyingError: parseError
            )
        case is CancellationError:
            return SluiceError(.cancelled, stage: .transport, response: response, underlyingError: error)
        default:
            return SluiceError(.transport, response: response, underlyingError: error)
        }
    }
}

/// An iterator belongs to the one task that reads the stream, so it deliberately is not `Sendable`.
@available(*, unavailable)
extension ResponseStream.AsyncIterator: Sendable {}
