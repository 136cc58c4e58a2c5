/// The event stream interpretation of the WHATWG HTML standard (9.2.6), one line at a time.
///
/// The parser keeps the buffers the standard names: data, event type and last event ID, and the reconnection
/// time. Lines come from a ``LineSplitter``, which already ends them at CR, LF or CRLF; text is decoded as UTF-8
/// with replacement characters, one byte order mark at the start of the stream is dropped.
struct ServerSentEventParser {
    /// The most bytes an event's data may hold, line feeds included.
    let maximumEventSize: Int
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: [UInt8] = []
    private(set) var lastEventID = ""
    private var lastEventIDChanged = false
    private(set) var retry: Duration?
    private var atStreamStart = true

    /// Creates a parser, carrying the last event ID and reconnection time of an earlier connection of the same
    /// stream, as an `EventSource` does when it reconnects.
    init(maximumEventSize: Int, lastEventID: String = "", retry: Duration? = nil) {
        self.maximumEventSize = max(0, maximumEventSize)
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = Array(lastEventID.utf8)
        self.retry = retry
    }

    /// Reads one line of the stream.
    ///
    /// - Parameters:
    ///   - line: The line, without its terminator.
    ///   - number: The line's number, for errors.
    /// - Returns: The event a blank line dispatches, or `nil`.
    /// - Throws: ``StreamParseError/Code/eventTooLarge`` when the event's data grows past the limit.
    mutating func read(_ line: UnsafeBufferPointer<UInt8>, number: Int) throws -> ServerSentEvent? {
        var line = line
        if atStreamStart {
            atStreamStart = false
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeBufferPointer(rebasing: line[3...])
            }
        }
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") {
            return nil
        }
        var colon = 0
        while colon < line.count, line[colon] != UInt8(ascii: ":") {
            colon += 1
        }
        var valueStart = colon + 1
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") {
            valueStart += 1
        }
        let value = UnsafeBufferPointer(rebasing: line[min(valueStart, line.count)...])
        switch colon {
        case 4 where Self.matches(line, "data"):
            guard data.count + value.count + 1 <= maximumEventSize else {
                throw StreamParseError.eventTooLarge(line: number, limit: maximumEventSize)
            }
            data.append(contentsOf: value)
            data.append(UInt8(ascii: "\n"))
        case 5 where Self.matches(line, "event"):
            eventType.removeAll(keepingCapacity: true)
            eventType.append(contentsOf: value)
        case 2 where Self.matches(line, "id"):
            if !value.contains(0) {
                lastEventIDBuffer.removeAll(keepingCapacity: true)
                lastEventIDBuffer.append(contentsOf: value)
                lastEventIDChanged = true
            }
        case 5 where Self.matches(line, "retry"):
            if let milliseconds = Self.milliseconds(value) {
                retry = .milliseconds(milliseconds)
            }
        default:
            break
        }
        return nil
    }

    /// Dispatches the event gathered so far, at a blank line.
    private mutating func dispatch() -> ServerSentEvent? {
        if lastEventIDChanged {
            lastEventID = String(decoding: lastEventIDBuffer, as: UTF8.self)
            lastEventIDChanged = false
        }
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll(keepingCapacity: true)
        }
        guard !data.isEmpty else { return nil }
        let text = data.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self)
        }
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        return ServerSentEvent(type: type, data: text, lastEventID: lastEventID, retry: retry)
    }

    /// Whether a line starts with a field name, its length already checked.
    private static func matches(_ line: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { name in
            for index in 0..<name.count where line[index] != name[index] {
                return false
            }
            return true
        }
    }

    /// The value of a `retry` field: only ASCII digits, at least one, and small enough for an `Int`.
    private static func milliseconds(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
        }
        return result
    }
}
