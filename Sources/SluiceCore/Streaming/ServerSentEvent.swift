/// One event of a `text/event-stream`: its type, its data, and the stream's last event ID and reconnection time
/// when it was dispatched.
///
/// ``Client/events(_:reconnecting:clock:)`` makes these from a stream's bytes, as a browser's `EventSource` makes
/// `MessageEvent`s:
///
/// ```swift
/// for try await event in try await client.events(PriceFeed(symbol: "ACME")) {
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

extension ServerSentEvent {
    /// The event as `text/event-stream` text, ending with the blank line that dispatches it, such as
    /// `"event: price\nid: 7\ndata: 42.5\n\n"`.
    ///
    /// The type is written when it is not `message`, the ID when it is not empty, the reconnection time in whole
    /// milliseconds when set, and one `data` line for each line of the data. Line breaks in the type or the ID,
    /// which the format cannot carry, are replaced with spaces. Reading the text back as an event stream, as
    /// ``Client/events(_:reconnecting:clock:)`` does, gives the event again.
    public var encoded: String {
        let milliseconds = retry.map { retry in
            let (seconds, attoseconds) = retry.components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        }
        return ServerSentEvent.encode(
            type: type == "message" ? nil : type,
            data: data,
            id: lastEventID.isEmpty ? nil : lastEventID,
            retry: milliseconds
        )
    }

    /// The `text/event-stream` text of an event's fields, each left out when `nil`, ending with the blank line that
    /// dispatches it.
    ///
    /// The data is written as one `data` line for each of its lines, ended by LF, CRLF or CR. Line breaks in the type
    /// or the ID, which the format cannot carry, are replaced with spaces. SluiceTesting's loopback server writes its
    /// events with it too.
    package static func encode(type: String?, data: String?, id: String?, retry: Int64?) -> String {
        func oneLine(_ text: String) -> String {
            String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        }
        var text = ""
        if let type {
            text += "event: \(oneLine(type))\n"
        }
        if let id {
            text += "id: \(oneLine(id))\n"
        }
        if let retry {
            text += "retry: \(retry)\n"
        }
        if let data {
            let lines = data.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            for line in lines {
                text += "data: \(line)\n"
            }
        }
        return text + "\n"
    }
}
