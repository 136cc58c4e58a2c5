/// The server-sent events of a `text/event-stream` body, read from its byte chunks as they arrive: what
/// ``Client/events(_:reconnecting:clock:)`` reads each connection's body with.
///
/// The events are interpreted as the WHATWG HTML standard's "event stream interpretation" says, as a browser's
/// `EventSource` does: a byte order mark at the start is dropped; lines end at CR, LF or CRLF; a line starting
/// with `:` is a comment; `field: value` loses one space after the colon; `data` lines are joined with line feeds;
/// `event` sets the type (`message` when absent); `id` sets the last event ID, which later events keep, unless
/// its value contains NUL; `retry` sets the reconnection time when its value is all ASCII digits; unknown fields
/// are ignored; a blank line dispatches the event unless it has no data. An event may be split across chunks at
/// any byte. When the body ends, an event without its blank line is dropped.
///
/// The sequence reads the base only as events are asked for, holding one chunk and one unfinished line at a time,
/// and ends by throwing `CancellationError` when the consuming task is cancelled. A line longer than
/// `maximumLineLength`, or an event whose data grows past `maximumEventSize`, ends it with a
/// ``StreamParseError``. Reconnecting with `Last-Event-ID` after the body ends is the client's part, not the
/// sequence's; the iterator's ``AsyncIterator/lastEventID`` and ``AsyncIterator/retry`` keep what it needs.
package struct ServerSentEventDecodingSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// A server-sent event.
    package typealias Element = ServerSentEvent

    private let base: Base
    private let maximumLineLength: Int
    private let maximumEventSize: Int
    private let lastEventID: String
    private let retry: Duration?

    /// Creates the events of a sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - base: The body's bytes, in chunks of any size.
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    ///   - maximumEventSize: The most bytes one event's data may hold; 16 MiB by default.
    ///   - lastEventID: The last event ID of an earlier connection of the same stream, which events carry until
    ///     this one sets another; empty by default.
    ///   - retry: The reconnection time an earlier connection of the same stream set; `nil` by default.
    package init(
        base: Base,
        maximumLineLength: Int = 1 << 20,
        maximumEventSize: Int = 16 << 20,
        lastEventID: String = "",
        retry: Duration? = nil
    ) {
        self.base = base
        self.maximumLineLength = maximumLineLength
        self.maximumEventSize = maximumEventSize
        self.lastEventID = lastEventID
        self.retry = retry
    }

    /// Creates an iterator over the events.
    ///
    /// - Returns: An iterator that reads the base as events are asked for.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            reader: LineReader(base: base.makeAsyncIterator(), maximumLineLength: maximumLineLength),
            parser: ServerSentEventParser(maximumEventSize: maximumEventSize, lastEventID: lastEventID, retry: retry)
        )
    }

    /// An iterator over the events of a sequence of byte chunks.
    package struct AsyncIterator: AsyncIteratorProtocol {
        private var reader: LineReader<Base.AsyncIterator>
        private var parser: ServerSentEventParser

        fileprivate init(reader: LineReader<Base.AsyncIterator>, parser: ServerSentEventParser) {
            self.reader = reader
            self.parser = parser
        }

        /// The last event ID the stream set, as of the last blank line read, or the empty string.
        ///
        /// It changes at every blank line after an `id` field, also when no event is dispatched because the block
        /// had no data, so a client reconnecting after the body ends sends it as the `Last-Event-ID` header.
        package var lastEventID: String { parser.lastEventID }

        /// The reconnection time the stream's last valid `retry` field set, or `nil` when it set none.
        ///
        /// A client reconnecting after the body ends waits this long, or its own default when `nil`.
        package var retry: Duration? { parser.retry }

        /// Reads the stream until the next event is dispatched.
        ///
        /// - Returns: The next event, or `nil` when the base ended.
        /// - Throws: ``StreamParseError`` for a line or an event past its limit; `CancellationError` when the task
        ///   is cancelled; what the base throws.
        package mutating func next() async throws -> ServerSentEvent? {
            try await reader.next(&parser, readsUnterminatedLine: false) { parser, line, number in
                try parser.read(line, number: number)
            }
        }
    }
}

extension ServerSentEventDecodingSequence: Sendable where Base: Sendable {}

// An iterator is one loop's cursor; it can move to another task with its loop when its base's iterator can.
extension ServerSentEventDecodingSequence.AsyncIterator: Sendable where Base.AsyncIterator: Sendable {}

extension AsyncSequence where Element == Data {
    /// The server-sent events of a `text/event-stream` body given as byte chunks.
    ///
    /// - Parameters:
    ///   - maximumLineLength: The most bytes a line may hold; 1 MiB by default.
    ///   - maximumEventSize: The most bytes one event's data may hold; 16 MiB by default.
    /// - Returns: The events, read from this sequence as they are asked for.
    package func decodingServerSentEvents(
        maximumLineLength: Int = 1 << 20,
        maximumEventSize: Int = 16 << 20
    ) -> ServerSentEventDecodingSequence<Self> {
        ServerSentEventDecodingSequence(
            base: self,
            maximumLineLength: maximumLineLength,
            maximumEventSize: maximumEventSize
        )
    }
}
