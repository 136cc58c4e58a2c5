import CSluiceSystem
import Foundation

/// The protocol state of one HTTP/2 client connection, without I/O: the bytes read from the connection go in with
/// ``receive(_:)``, which says what they meant as ``Event``s, and the bytes to write come out of ``output()``.
///
/// The frames, HPACK and the stream state machines are nghttp2's (``NGHTTP2``); what is let in is Sluice's: a
/// response's fields are held to ``Limits/maximumFieldListSize`` and ``Limits/maximumFieldCount``, the server may not
/// push, and no window opens again until the reader has taken the bytes that filled it (``consume(_:on:)``), so a
/// slow reader slows the server rather than filling memory.
///
/// Not thread-safe: one connection uses it, under its lock, one call at a time; `@unchecked Sendable` so that it can be
/// made before the connection it is handed to.
package final class HTTP2Session: @unchecked Sendable {
    /// What the session lets in.
    package struct Limits: Sendable, Equatable {
        /// The most bytes of a response's field section, names and values with 32 bytes for each field as RFC 7541
        /// counts them; also announced to the server as `SETTINGS_MAX_HEADER_LIST_SIZE`.
        package var maximumFieldListSize: Int
        /// The most fields in a response's field section.
        package var maximumFieldCount: Int
        /// The bytes of a response body the server may send on one stream before the reader takes them.
        package var streamWindow: Int
        /// The bytes of response bodies the server may send on all streams together before their readers take them.
        package var connectionWindow: Int

        /// Limits.
        ///
        /// - Parameters:
        ///   - maximumFieldListSize: The most bytes of a field section; 64 KiB by default.
        ///   - maximumFieldCount: The most fields in a field section; 256 by default.
        ///   - streamWindow: The bytes a stream may hold for its reader; 1 MiB by default.
        ///   - connectionWindow: The bytes all streams together may hold; the larger of 1 MiB and `streamWindow` by
        ///     default.
        package init(
            maximumFieldListSize: Int = 64 << 10,
            maximumFieldCount: Int = 256,
            streamWindow: Int = 1 << 20,
            connectionWindow: Int? = nil
        ) {
            self.maximumFieldListSize = maximumFieldListSize
            self.maximumFieldCount = maximumFieldCount
            self.streamWindow = min(max(streamWindow, 1), Int(Int32.max))
            self.connectionWindow = min(max(connectionWindow ?? max(1 << 20, streamWindow), 65_535), Int(Int32.max))
        }
    }

    /// What the server's bytes meant, in the order they arrived.
    package enum Event: Equatable {
        /// The server's settings arrived (first, or changed): the most streams it lets this client open at once.
        case settings(maximumConcurrentStreams: Int)
        /// A response's head: its status and its fields, in order, names lowercase as HTTP/2 sends them.
        case head(stream: Int32, status: Int, fields: [(name: String, value: String)])
        /// Fields after a response's body.
        case trailers(stream: Int32, fields: [(name: String, value: String)])
        /// Bytes of a response's body.
        case data(stream: Int32, bytes: [UInt8])
        /// The response is whole: the server ended its stream.
        case end(stream: Int32)
        /// The stream is closed; `error` is `nil` when it ended normally, else why it was reset.
        case closed(stream: Int32, error: SluiceError?)
        /// The server is going away: streams above `lastStream` were not processed, and may be sent again elsewhere.
        case goAway(lastStream: Int32, errorCode: UInt32)
        /// The server refused the stream (RST_STREAM with REFUSED_STREAM) before processing it: the request may be
        /// sent again on another connection, whatever its method (RFC 9113 section 8.7). The stream is closed.
        case refused(stream: Int32)
        /// The server answered a ``HTTP2Session/ping()``.
        case pingAcknowledged

        /// Whether two events say the same: fields compared in order, a close's error by its message.
        package static func == (lhs: Event, rhs: Event) -> Bool {
            switch (lhs, rhs) {
            case (.settings(let a), .settings(let b)): a == b
            case (.head(let s1, let c1, let f1), .head(let s2, let c2, let f2)):
                s1 == s2 && c1 == c2 && f1.elementsEqual(f2, by: ==)
            case (.trailers(let s1, let f1), .trailers(let s2, let f2)): s1 == s2 && f1.elementsEqual(f2, by: ==)
            case (.data(let s1, let b1), .data(let s2, let b2)): s1 == s2 && b1 == b2
            case (.end(let a), .end(let b)): a == b
            case (.closed(let s1, let e1), .closed(let s2, let e2)): s1 == s2 && e1?.message == e2?.message
            case (.goAway(let s1, let c1), .goAway(let s2, let c2)): s1 == s2 && c1 == c2
            case (.refused(let a), .refused(let b)): a == b
            case (.pingAcknowledged, .pingAcknowledged): true
            default: false
            }
        }
    }

    /// What a request body's producer gave when asked for bytes.
    package enum BodyRead {
        /// This many bytes, written to the start of the buffer.
        case bytes(Int)
        /// The body has ended.
        case end
        /// Nothing yet: sending resumes once ``resumeBody(of:)`` is called.
        case later
        /// The body failed; the stream is reset and closes with this error.
        case failed(SluiceError)
    }

    /// Fills a buffer with the next bytes of a request body.
    package typealias BodySource = (UnsafeMutableRawBufferPointer) -> BodyRead

    private let library: NGHTTP2
    let limits: Limits
    private var session: OpaquePointer?
    /// What the callbacks found during the current ``receive(_:)``.
    var events: [Event] = []
    /// The field sections being received, by stream, and their size so far.
    var fields: [Int32: (list: [(name: String, value: String)], size: Int)] = [:]
    /// The streams whose final head has arrived: a later field section is their trailers.
    var answered: Set<Int32> = []
    /// Why a stream was reset by this side, for its close event.
    var failures: [Int32: SluiceError] = [:]
    /// Bytes made while receiving, for the next ``output()``.
    private var pending: [UInt8] = []
    /// nghttp2's words for the last error it found in the server's bytes.
    var lastError: String?
    /// The request bodies still being sent, by stream.
    var bodies: [Int32: BodySource] = [:]
    /// The streams the server refused, until they close.
    var refusedStreams: Set<Int32> = []

    /// Starts a session: the connection preface and this client's settings are the first ``output()``.
    ///
    /// - Parameters:
    ///   - library: The loaded nghttp2.
    ///   - limits: What the session lets in.
    /// - Throws: ``SluiceError`` when nghttp2 could not make the session.
    package init(library: NGHTTP2, limits: Limits = Limits()) throws(SluiceError) {
        self.library = library
        self.limits = limits
        var callbacks: OpaquePointer?
        guard library.callbacksNew(&callbacks) == 0, let callbacks else {
            throw Self.failure("nghttp2 could not allocate its callbacks")
        }
        defer { library.callbacksDelete(callbacks) }
        library.setOnBeginHeaders(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            HTTP2Session.from(user).beginFields(on: frame.pointee.stream_id)
            return 0
        }
        library.setOnHeader(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let user, let name, let value else { return 0 }
            return HTTP2Session.from(user).field(
                on: frame.pointee.stream_id,
                name: UnsafeBufferPointer(start: name, count: nameLength),
                value: UnsafeBufferPointer(start: value, count: valueLength)
            )
        }
        library.setOnFrameReceive(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            return HTTP2Session.from(user).received(frame)
        }
        library.setOnDataChunk(callbacks) { _, _, stream, data, length, user in
            guard let user, let data else { return 0 }
            HTTP2Session.from(user).events.append(
                .data(stream: stream, bytes: Array(UnsafeBufferPointer(start: data, count: length)))
            )
            return 0
        }
        library.setOnStreamClose(callbacks) { _, stream, code, user in
            guard let user else { return 0 }
            HTTP2Session.from(user).closed(stream, code: code)
            return 0
        }
        library.setOnError(callbacks) { _, _, message, length, user in
            guard let user, let message else { return 0 }
            let bytes = UnsafeRawBufferPointer(start: message, count: length)
            // Its sentences end with a full stop and are spaced twice: one space, and no stop before the message goes on.
            let words = String(decoding: bytes, as: UTF8.self).split(separator: " ").joined(separator: " ")
            HTTP2Session.from(user).lastError = words.hasSuffix(".") ? String(words.dropLast()) : words
            return 0
        }
        var option: OpaquePointer?
        guard library.optionNew(&option) == 0, let option else {
            throw Self.failure("nghttp2 could not allocate its options")
        }
        defer { library.optionDelete(option) }
        // The window opens again only as the reader takes bytes (consume), which is the back-pressure.
        library.optionSetNoAutoWindowUpdate(option, 1)
        // Until the server's SETTINGS say otherwise, RFC 9113 section 6.5.2 recommends assuming at least 100.
        library.optionSetPeerMaxConcurrentStreams(option, 100)
        var made: OpaquePointer?
        let code = library.sessionClientNew(&made, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard code == 0, let made else {
            throw Self.failure("nghttp2 could not start a session: \(library.describe(Int(code)))")
        }
        session = made
        let settings = [
            SluiceH2Setting(settings_id: Int32(SLUICE_NGHTTP2_SETTINGS_ENABLE_PUSH), value: 0),
            SluiceH2Setting(
                settings_id: Int32(SLUICE_NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE),
                value: UInt32(clamping: limits.streamWindow)
            ),
            SluiceH2Setting(
                settings_id: Int32(SLUICE_NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE),
                value: UInt32(clamping: limits.maximumFieldListSize)
            ),
        ]
        let submitted = library.submitSettings(made, UInt8(SLUICE_NGHTTP2_FLAG_NONE), settings, settings.count)
        guard submitted == 0 else {
            throw Self.failure("nghttp2 could not queue this client's settings: \(library.describe(Int(submitted)))")
        }
        // The connection's window starts at 65,535 bytes whatever the settings say (RFC 9113 section 6.9.2).
        if limits.connectionWindow > 65_535 {
            let increment = Int32(limits.connectionWindow - 65_535)
            let opened = library.submitWindowUpdate(made, UInt8(SLUICE_NGHTTP2_FLAG_NONE), 0, increment)
            guard opened == 0 else {
                throw Self.failure("nghttp2 could not open the connection's window: \(library.describe(Int(opened)))")
            }
        }
    }

    deinit {
        if let session {
            library.sessionDelete(session)
        }
    }

    private static func from(_ user: UnsafeMutableRawPointer) -> HTTP2Session {
        Unmanaged<HTTP2Session>.fromOpaque(user).takeUnretainedValue()
    }

    private static func failure(_ message: String) -> SluiceError {
        SluiceError(.transport, message: message)
    }

    // MARK: - Requests

    /// Opens a stream for a request.
    ///
    /// - Parameters:
    ///   - fields: The pseudo-fields (`:method`, `:scheme`, `:authority`, `:path`) first, then the fields, names
    ///     lowercase; nghttp2 refuses what RFC 9113 forbids (a connection-specific field, a name with an uppercase
    ///     letter).
    ///   - body: Where the body's bytes come from; `nil` for a request without a body, whose stream ends with its head.
    /// - Returns: The stream's identifier.
    /// - Throws: ``SluiceError`` when nghttp2 refuses the request.
    package func submitRequest(
        _ fields: [(name: String, value: String)],
        body: BodySource? = nil
    ) throws(SluiceError) -> Int32 {
        guard let session else { throw Self.failure("the HTTP/2 session is closed") }
        // Every name and value in one buffer, which stays put for the call; nghttp2 copies each.
        var storage: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        for field in fields {
            let nameStart = storage.count
            storage.append(contentsOf: field.name.utf8)
            let valueStart = storage.count
            storage.append(contentsOf: field.value.utf8)
            spans.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        let stream = storage.withUnsafeMutableBufferPointer { bytes -> Int32 in
            let base = bytes.baseAddress
            let pairs = spans.map { span in
                SluiceH2NameValue(
                    name: base.map { $0 + span.name.lowerBound },
                    value: base.map { $0 + span.value.lowerBound },
                    namelen: span.name.count,
                    valuelen: span.value.count,
                    flags: UInt8(SLUICE_NGHTTP2_NV_FLAG_NONE)
                )
            }
            guard body != nil else {
                return library.submitRequest(session, nil, pairs, pairs.count, nil, nil)
            }
            var provider = SluiceH2DataProvider(
                source: SluiceH2DataSource(ptr: nil),
                read_callback: { _, stream, buffer, length, flags, _, user in
                    guard let user, let buffer, let flags else { return Int(SLUICE_NGHTTP2_ERR_CALLBACK_FAILURE) }
                    return HTTP2Session.from(user).readBody(of: stream, into: buffer, length: length, flags: flags)
                }
            )
            return library.submitRequest(session, nil, pairs, pairs.count, &provider, nil)
        }
        guard stream > 0 else {
            throw SluiceError(
                .build,
                message: "the request could not be sent over HTTP/2: \(library.describe(Int(stream)))"
            )
        }
        if let body {
            bodies[stream] = body
        }
        return stream
    }

    /// Goes on sending a request body whose source said ``BodyRead/later``.
    package func resumeBody(of stream: Int32) {
        guard let session, bodies[stream] != nil else { return }
        _ = library.sessionResumeData(session, stream)
    }

    /// Resets a stream: the caller no longer wants its response.
    ///
    /// - Parameters:
    ///   - stream: The stream.
    ///   - error: Why, for the stream's close event.
    package func reset(_ stream: Int32, because error: SluiceError) {
        guard let session else { return }
        failures[stream] = error
        _ = library.submitResetStream(session, UInt8(SLUICE_NGHTTP2_FLAG_NONE), stream, UInt32(SLUICE_NGHTTP2_CANCEL))
    }

    /// Says that the reader has taken bytes of a stream's body, so that the server may send as many more.
    package func consume(_ count: Int, on stream: Int32) {
        guard let session, count > 0 else { return }
        _ = library.sessionConsume(session, stream, count)
    }

    /// Sends a PING, which the server answers with ``Event/pingAcknowledged``.
    package func ping() {
        guard let session else { return }
        _ = library.submitPing(session, UInt8(SLUICE_NGHTTP2_FLAG_NONE), nil)
    }

    /// Ends the session with a GOAWAY: no new stream, and the open ones finish.
    package func goAway() {
        guard let session else { return }
        _ = library.submitGoAway(session, UInt8(SLUICE_NGHTTP2_FLAG_NONE), 0, UInt32(SLUICE_NGHTTP2_NO_ERROR), nil, 0)
    }

    // MARK: - I/O

    /// Takes bytes read from the connection.
    ///
    /// What the bytes call for in return (acknowledgements, window updates, a GOAWAY) is made at once and waits for
    /// ``output()``.
    ///
    /// - Parameter bytes: The bytes, as they came.
    /// - Returns: What they meant, in order, after any event ``takeEvents()`` has not taken yet.
    /// - Throws: ``SluiceError`` when they break HTTP/2 for the whole connection; the session then has a GOAWAY to
    ///   write, and takes nothing more.
    package func receive(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) -> [Event] {
        guard let session else { throw Self.failure("the HTTP/2 session is closed") }
        let read = bytes.withMemoryRebound(to: UInt8.self) { bytes in
            library.sessionReceive(session, bytes.baseAddress, bytes.count)
        }
        if read >= 0 {
            try send(into: &pending)
        }
        // A connection error (a frame that breaks RFC 9113) is not a failed call: nghttp2 queues a GOAWAY, says why
        // through its error callback, and once the GOAWAY is made it reads no more.
        let broken = read < 0 ? library.describe(read) : library.sessionWantsRead(session) == 0 ? lastError : nil
        if let broken {
            throw SluiceError(
                .transport,
                message: "the server broke HTTP/2 (RFC 9113): \(broken); the connection is closed",
                underlyingError: URLError(.cannotParseResponse)
            )
        }
        return takeEvents()
    }

    /// The events that happened since the last ``receive(_:)`` while the session wrote (a stream reset by this side
    /// closes once its RST_STREAM is made), in order.
    package func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The bytes to write to the connection now: frames, window updates, acknowledgements; empty when there are none.
    ///
    /// - Throws: ``SluiceError`` when nghttp2 could not make them.
    package func output() throws(SluiceError) -> [UInt8] {
        var out = pending
        pending.removeAll()
        try send(into: &out)
        return out
    }

    /// Appends every frame nghttp2 has to write.
    private func send(into out: inout [UInt8]) throws(SluiceError) {
        guard let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = library.sessionSend(session, &data)
            guard count >= 0 else {
                throw Self.failure("the HTTP/2 session could not write its frames: \(library.describe(count))")
            }
            guard count > 0, let data else { return }
            out.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
    }

    /// Whether the session still reads: `false` once both sides have said GOAWAY and no stream is open.
    package var wantsToRead: Bool { session.map { library.sessionWantsRead($0) != 0 } ?? false }

    /// Whether the session has something to write.
    package var wantsToWrite: Bool { session.map { library.sessionWantsWrite($0) != 0 } ?? false }

    /// The most streams the server lets this client open at once, from its settings (100 until they arrive).
    package var maximumConcurrentStreams: Int {
        guard let session else { return 0 }
        return Int(library.sessionRemoteSetting(session, Int32(SLUICE_NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)))
    }
}
