/// One event of a `text/event-stream`: its type, its data, and the stream's last event ID and reconnection time
/// when it was dispatched.
///
/// ``ServerSentEventSequence`` makes these from a stream's bytes, as a browser's `EventSource` makes
/// `MessageEvent`s:
///
/// ```swift
/// for try await event in chunks.serverSentEvents() {
///     if event.type == "price" {
///         print(event.data, event.lastEventID)
///     }
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: the last `event` field's value, or `message` when the event had none.
    public var type: String
    /// The event's data: the values of its `data` fields joined with line feeds.
    public var data: String
    /// The last event ID the stream set, by this event or an earlier one, or the empty string when none did.
    ///
    /// As in a browser, an event without an `id` field carries the ID of the one before it; an `id` field with an
    /// empty value resets it. A client reconnecting sends it as the `Last-Event-ID` header.
    public var lastEventID: String
    /// The reconnection time the stream set, by a `retry` field of this event or an earlier one, or `nil` when it
    /// set none.
    public var retry: Duration?

    /// Creates an event.
    ///
    /// ```swift
    /// let event = ServerSentEvent(type: "price", data: "42.5", lastEventID: "7")
    /// ```
    ///
    /// - Parameters:
    ///   - type: The event's type; `message` by default.
    ///   - data: The event's data.
    ///   - lastEventID: The stream's last event ID; empty by default.
    ///   - retry: The stream's reconnection time; `nil` by default.
    public init(type: String = "message", data: String, lastEventID: String = "", retry: Duration? = nil) {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
        self.retry = retry
    }
}
