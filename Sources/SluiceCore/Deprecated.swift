// The spellings SluiceCore had before each concept kept one name, so that code written against them still compiles,
// with a warning naming the spelling to use. The Migrating article lists them side by side.

extension RequestContext {
    /// What receives the bytes of the current request's body sent so far; now a property of the request's context.
    @available(*, deprecated, message: "read the request's context: RequestContext.current?.uploadProgress")
    public static var uploadProgress: (@Sendable (_ bytesSent: Int64, _ expectedBytes: Int64?) -> Void)? {
        current?.uploadProgress
    }
}

// MARK: - Typed streams read from any sequence of byte chunks

/// The lines of a text body, read from its byte chunks; now read from a response by
/// ``Client/lines(_:maximumLength:)``.
///
/// The client's method sends the request through the middleware, checks its status, reports it to the observers and
/// throws only ``SluiceError``s; this sequence reads the chunks alone, as it always did.
@available(*, deprecated, message: "read a response's lines with Client.lines(_:maximumLength:)")
public struct LineSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A line, without its terminator.
    public typealias Element = String

    private let lines: LineDecodingSequence<Base>

    /// Creates the lines of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The text's bytes, in chunks of any size.
    ///   - maximumLength: The most bytes a line may hold, its terminator not counted; 1 MiB by default.
    public init(base: Base, maximumLength: Int = 1 << 20) {
        lines = LineDecodingSequence(base: base, maximumLength: maximumLength)
    }

    /// Creates an iterator over the lines.
    ///
    /// - Returns: An iterator that reads the base as lines are asked for.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lines: lines.makeAsyncIterator())
    }

    /// An iterator over the lines of a sequence of byte chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var lines: LineDecodingSequence<Base>.AsyncIterator

        fileprivate init(lines: LineDecodingSequence<Base>.AsyncIterator) {
            self.lines = lines
        }

        /// Reads the next line.
        ///
        /// - Returns: The next line without its terminator, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line past the limit; `CancellationError` when the task is
        ///   cancelled; what the base throws.
        public mutating func next() async throws -> String? {
            try await lines.next()
        }
    }
}

// Each extension of a deprecated type is marked deprecated too: otherwise naming the type there is a use of it.
@available(*, deprecated)
extension LineSequence: Sendable where Base: Sendable {}

@available(*, deprecated)
extension LineSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

/// The records of a JSON Lines (NDJSON) body, read from its byte chunks; now read from a response by
/// ``Client/jsonLines(_:of:decoder:maximumLineLength:)``.
///
/// The client's method sends the request through the middleware, checks its status, reports it to the observers and
/// throws only ``SluiceError``s; this sequence reads the chunks alone, as it always did.
@available(*, deprecated, message: "read a response's records with Client.jsonLines(_:of:decoder:maximumLineLength:)")
public struct JSONLinesSequence<Base: AsyncSequence, Record: Decodable>: AsyncSequence where Base.Element == Data {
    /// A decoded record.
    public typealias Element = Record

    private let records: JSONLinesDecodingSequence<Base, Record>

    /// Creates the records of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The body's bytes, in chunks of any size.
    ///   - decoder: The decoder for each line.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    public init(base: Base, decoder: JSONDocumentDecoder = JSONDocumentDecoder(), maximumLineLength: Int = 1 << 20) {
        records = JSONLinesDecodingSequence(base: base, decoder: decoder, maximumLineLength: maximumLineLength)
    }

    /// Creates an iterator over the records.
    ///
    /// - Returns: An iterator that reads the base as records are asked for.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(records: records.makeAsyncIterator())
    }

    /// An iterator over the records of a sequence of byte chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var records: JSONLinesDecodingSequence<Base, Record>.AsyncIterator

        fileprivate init(records: JSONLinesDecodingSequence<Base, Record>.AsyncIterator) {
            self.records = records
        }

        /// Reads and decodes the next record, skipping blank lines.
        ///
        /// - Returns: The next record, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line that is not valid JSON, does not decode, or is past the limit;
        ///   `CancellationError` when the task is cancelled; what the base throws.
        public mutating func next() async throws -> Record? {
            try await records.next()
        }
    }
}

@available(*, deprecated)
extension JSONLinesSequence: Sendable where Base: Sendable {}

@available(*, deprecated)
extension JSONLinesSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

/// The server-sent events of a `text/event-stream` body, read from its byte chunks; now read from a response by
/// ``Client/events(_:reconnecting:clock:)``.
///
/// The client's method sends the request through the middleware, checks its status and `Content-Type`, reports it to
/// the observers, reconnects with `Last-Event-ID` as an `EventSource` does and throws only ``SluiceError``s; this
/// sequence reads the chunks alone, as it always did.
@available(*, deprecated, message: "read a response's events with Client.events(_:reconnecting:clock:)")
public struct ServerSentEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A server-sent event.
    public typealias Element = ServerSentEvent

    private let events: ServerSentEventDecodingSequence<Base>

    /// Creates the events of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The body's bytes, in chunks of any size.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    ///   - maximumEventSize: The most bytes one event's data may hold; 16 MiB by default.
    ///   - lastEventID: The last event ID of an earlier connection of the same stream, which events carry until
    ///     this one sets another; empty by default.
    ///   - retry: The reconnection time an earlier connection of the same stream set; `nil` by default.
    public init(
        base: Base,
        maximumLineLength: Int = 1 << 20,
        maximumEventSize: Int = 16 << 20,
        lastEventID: String = "",
        retry: Duration? = nil
    ) {
        events = ServerSentEventDecodingSequence(
            base: base,
            maximumLineLength: maximumLineLength,
            maximumEventSize: maximumEventSize,
            lastEventID: lastEventID,
            retry: retry
        )
    }

    /// Creates an iterator over the events.
    ///
    /// - Returns: An iterator that reads the base as events are asked for.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator())
    }

    /// An iterator over the events of a sequence of byte chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var events: ServerSentEventDecodingSequence<Base>.AsyncIterator

        fileprivate init(events: ServerSentEventDecodingSequence<Base>.AsyncIterator) {
            self.events = events
        }

        /// The last event ID the stream set, as of the last blank line read, or the empty string.
        public var lastEventID: String { events.lastEventID }

        /// The reconnection time the stream's last valid `retry` field set, or `nil` when it set none.
        public var retry: Duration? { events.retry }

        /// Reads the stream until the next event is dispatched.
        ///
        /// - Returns: The next event, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line or an event past its limit; `CancellationError` when the task
        ///   is cancelled; what the base throws.
        public mutating func next() async throws -> ServerSentEvent? {
            try await events.next()
        }
    }
}

@available(*, deprecated)
extension ServerSentEventSequence: Sendable where Base: Sendable {}

@available(*, deprecated)
extension ServerSentEventSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

extension AsyncSequence where Element == Data {
    /// The lines of a text body given as byte chunks; now read from a response by
    /// ``Client/lines(_:maximumLength:)``.
    ///
    /// - Parameter maximumLength: The most bytes a line may hold, its terminator not counted; 1 MiB by default.
    /// - Returns: The lines, read from this sequence as they are asked for.
    @available(*, deprecated, message: "read a response's lines with Client.lines(_:maximumLength:)")
    public func lines(maximumLength: Int = 1 << 20) -> LineSequence<Self> {
        LineSequence(base: self, maximumLength: maximumLength)
    }

    /// The records of a JSON Lines (NDJSON) body given as byte chunks; now read from a response by
    /// ``Client/jsonLines(_:of:decoder:maximumLineLength:)``.
    ///
    /// - Parameters:
    ///   - type: The type each line decodes to.
    ///   - decoder: The decoder for each line; a default ``JSONDocumentDecoder`` when omitted.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    /// - Returns: The records, read from this sequence as they are asked for.
    @available(
        *,
        deprecated,
        message: "read a response's records with Client.jsonLines(_:of:decoder:maximumLineLength:)"
    )
    public func jsonLines<Record: Decodable>(
        of type: Record.Type,
        decoder: JSONDocumentDecoder = JSONDocumentDecoder(),
        maximumLineLength: Int = 1 << 20
    ) -> JSONLinesSequence<Self, Record> {
        JSONLinesSequence(base: self, decoder: decoder, maximumLineLength: maximumLineLength)
    }

    /// The server-sent events of a `text/event-stream` body given as byte chunks; now read from a response by
    /// ``Client/events(_:reconnecting:clock:)``.
    ///
    /// - Parameters:
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    ///   - maximumEventSize: The most bytes one event's data may hold; 16 MiB by default.
    /// - Returns: The events, read from this sequence as they are asked for.
    @available(*, deprecated, message: "read a response's events with Client.events(_:reconnecting:clock:)")
    public func serverSentEvents(
        maximumLineLength: Int = 1 << 20,
        maximumEventSize: Int = 16 << 20
    ) -> ServerSentEventSequence<Self> {
        ServerSentEventSequence(base: self, maximumLineLength: maximumLineLength, maximumEventSize: maximumEventSize)
    }
}
