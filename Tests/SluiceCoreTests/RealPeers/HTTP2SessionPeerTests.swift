import ClientFixtures
import Foundation
import SluiceCore
import SluiceTransport
import TestSupport
import Testing

/// Whether the system's nghttp2 loads here (libnghttp2.so.14, as on every Linux with FoundationNetworking).
let nghttp2Loads = (try? NGHTTP2.shared.get()) != nil

/// Sluice's HTTP/2 session against Python's `h2` over a plain socket: the frames nghttp2 makes for it, the events it
/// reports, its limits and its flow control, checked against a server no one here wrote.
@Suite(.enabled(if: nghttp2Loads || NginxServer.isRequired, "the system's nghttp2 could not be loaded"))
struct HTTP2SessionPeerTests {
    /// A GET's fields for a path of the peer.
    static func get(_ path: String, port: Int) -> [(name: String, value: String)] {
        [(":method", "GET"), (":scheme", "http"), (":authority", "127.0.0.1:\(port)"), (":path", path)]
    }

    /// Writes what the session has to write and reads what comes back, until `done` says so or the peer closes.
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - client: The connection.
    ///   - consuming: Whether each body's bytes are taken as they arrive, opening the windows again; a test of flow
    ///     control takes them itself.
    ///   - done: Whether the events so far are all that is awaited; it may also act on them (consume, resume).
    /// - Returns: Every event, in order.
    /// - Throws: What the session or `done` throws, or ``RawClientError`` when the peer closes or goes quiet.
    static func run(
        _ session: HTTP2Session,
        over client: RawClient,
        consuming: Bool = true,
        until done: ([HTTP2Session.Event]) throws -> Bool
    ) throws -> [HTTP2Session.Event] {
        var events: [HTTP2Session.Event] = []
        func flush() throws {
            let out = try session.output()
            if !out.isEmpty {
                try client.send(out)
            }
            events += session.takeEvents()
        }
        while true {
            try flush()
            if try done(events) {
                return events
            }
            // What `done` did (a window opened, a body resumed) goes out before the wait for the server.
            try flush()
            let bytes = client.readAvailable()
            guard !bytes.isEmpty else { throw RawClientError("the peer closed, or sent nothing for 10 seconds") }
            let arrived = try bytes.withUnsafeBytes { try session.receive($0) }
            if consuming {
                for case .data(let stream, let bytes) in arrived {
                    session.consume(bytes.count, on: stream)
                }
            }
            events += arrived
        }
    }

    /// Every event of one GET on a new connection, the first stream, until it closes.
    static func fetch(_ path: String, from peer: HTTP2Peer) async throws -> [HTTP2Session.Event] {
        try await offThePool {
            let session = try HTTP2Session(library: try NGHTTP2.shared.get())
            let client = try RawClient(port: peer.port)
            let stream = try session.submitRequest(Self.get(path, port: peer.port))
            #expect(stream == 1)
            return try Self.run(session, over: client) { Self.closed(stream, in: $0) }
        }
    }

    /// Whether the events include the close of a stream.
    static func closed(_ stream: Int32, in events: [HTTP2Session.Event]) -> Bool {
        events.contains { event in
            switch event {
            case .closed(stream, _), .refused(stream): true
            default: false
            }
        }
    }

    /// The body bytes of a stream among the events.
    static func body(of stream: Int32, in events: [HTTP2Session.Event]) -> [UInt8] {
        events.flatMap { event -> [UInt8] in
            if case .data(stream, let bytes) = event { bytes } else { [] }
        }
    }

    @Test func aGetArrivesWithItsHeadBodyAndEnd() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let events = try await Self.fetch("/hello", from: peer)
        // h2 sends its default settings, then the change to 7 streams.
        let settings = events.filter { if case .settings = $0 { true } else { false } }
        #expect(settings.last == .settings(maximumConcurrentStreams: 7))
        #expect(
            events.filter { if case .settings = $0 { false } else { true } }
                == [
                    .head(stream: 1, status: 200, fields: [("content-type", "text/plain")]),
                    .data(stream: 1, bytes: Array("hello over h2".utf8)),
                    .end(stream: 1),
                    .closed(stream: 1, error: nil),
                ]
        )
    }

    @Test func manyRequestsShareOneConnectionAtOnce() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let (streams, events) = try await offThePool {
            let session = try HTTP2Session(library: try NGHTTP2.shared.get())
            let client = try RawClient(port: peer.port)
            let streams = try (0..<5).map { _ in try session.submitRequest(Self.get("/hello", port: peer.port)) }
            let events = try Self.run(session, over: client) { events in
                streams.allSatisfy { Self.closed($0, in: events) }
            }
            return (streams, events)
        }
        #expect(streams == [1, 3, 5, 7, 9])
        for stream in streams {
            #expect(Self.body(of: stream, in: events) == Array("hello over h2".utf8))
            #expect(events.contains(.closed(stream: stream, error: nil)))
        }
    }

    @Test func aBodyIsSentAsItsSourceGivesItAndWaitsWhenItHasNothing() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let payload = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let (events, waits) = try await offThePool {
            let session = try HTTP2Session(library: try NGHTTP2.shared.get())
            let client = try RawClient(port: peer.port)
            var offset = 0
            var waits = 0
            var holding = true
            let fields: [(name: String, value: String)] =
                [(":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1:\(peer.port)")]
                + [(":path", "/echo"), ("content-length", "\(payload.count)")]
            let stream = try session.submitRequest(fields) { buffer in
                // Nothing at first, as a producer that is not ready: the session waits to be resumed.
                if holding {
                    holding = false
                    waits += 1
                    return .later
                }
                guard offset < payload.count else { return .end }
                let count = min(buffer.count, payload.count - offset, 7_000)
                payload[offset..<offset + count].withUnsafeBytes { buffer.copyMemory(from: $0) }
                offset += count
                return .bytes(count)
            }
            var resumed = false
            let events = try Self.run(session, over: client) { events in
                // Resumed once the source has said it has nothing: as a producer does when its next chunk comes.
                if waits == 1, !resumed {
                    resumed = true
                    session.resumeBody(of: stream)
                }
                return Self.closed(stream, in: events)
            }
            return (events, waits)
        }
        #expect(waits == 1)
        #expect(events.contains(.head(stream: 1, status: 200, fields: [("x-received", "100000")])))
        #expect(Self.body(of: 1, in: events) == payload)
    }

    /// The server sends no more than the window this client opens: the bytes it holds for its reader stay within the
    /// stream's window, and the whole body arrives as the reader takes each piece.
    @Test func aSlowReaderHoldsNoMoreThanTheWindow() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let size = 3 << 20
        let window = 64 << 10
        let (received, mostHeld) = try await offThePool {
            let session = try HTTP2Session(
                library: try NGHTTP2.shared.get(),
                limits: HTTP2Session.Limits(streamWindow: window)
            )
            let client = try RawClient(port: peer.port)
            let stream = try session.submitRequest(Self.get("/big/\(size)", port: peer.port))
            var received: [UInt8] = []
            var taken = 0
            var mostHeld = 0
            _ = try Self.run(session, over: client, consuming: false) { events in
                received = Self.body(of: stream, in: events)
                mostHeld = max(mostHeld, received.count - taken)
                // The reader takes what arrived only now, after the check: until then the server must wait.
                session.consume(received.count - taken, on: stream)
                taken = received.count
                return Self.closed(stream, in: events)
            }
            return (received, mostHeld)
        }
        #expect(received.count == size)
        #expect(received.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) })
        #expect(mostHeld <= window, "held \(mostHeld) bytes for the reader, more than the window of \(window)")
        #expect(mostHeld > 0)
    }

    @Test func trailersFollowTheBody() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let events = try await Self.fetch("/trailers", from: peer)
        #expect(
            events.filter { if case .settings = $0 { false } else { true } }
                == [
                    .head(stream: 1, status: 200, fields: []),
                    .data(stream: 1, bytes: Array("body".utf8)),
                    .trailers(stream: 1, fields: [("x-checksum", "done")]),
                    .end(stream: 1),
                    .closed(stream: 1, error: nil),
                ]
        )
    }

    /// A field section past the limit resets its stream alone, with an error that says which limit; the connection
    /// goes on serving.
    @Test func tooManyFieldsResetTheirStreamAndTheConnectionGoesOn() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let events = try await offThePool {
            let session = try HTTP2Session(
                library: try NGHTTP2.shared.get(),
                limits: HTTP2Session.Limits(maximumFieldCount: 100)
            )
            let client = try RawClient(port: peer.port)
            let flood = try session.submitRequest(Self.get("/many-fields/300", port: peer.port))
            var events = try Self.run(session, over: client) { Self.closed(flood, in: $0) }
            let after = try session.submitRequest(Self.get("/hello", port: peer.port))
            events += try Self.run(session, over: client) { Self.closed(after, in: $0) }
            return events
        }
        let failure = events.compactMap { event -> SluiceError? in
            if case .closed(1, let error) = event { error } else { nil }
        }
        #expect(
            failure.first?.message
                == "the response's HTTP/2 field section passed 100 fields, the most this client takes; the stream was reset"
        )
        #expect(!events.contains { if case .head(1, _, _) = $0 { true } else { false } })
        #expect(Self.body(of: 3, in: events) == Array("hello over h2".utf8))
    }

    @Test func aStreamTheServerResetsClosesWithTheCodeNamed() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let events = try await Self.fetch("/reset-internal", from: peer)
        let error = events.compactMap { event -> SluiceError? in
            if case .closed(1, let error) = event { error } else { nil }
        }.first
        #expect(error?.message == "the server reset the HTTP/2 stream with INTERNAL_ERROR (0x2) (RFC 9113 section 7)")
        #expect(error?.code == .transport)
    }

    /// A stream the server refuses is told apart from other resets: its request was not processed, and may go again.
    @Test func aRefusedStreamIsToldApart() async throws {
        guard let peer = try await HTTP2Peer.start() else { return }
        let events = try await Self.fetch("/reset", from: peer)
        #expect(events.contains(.refused(stream: 1)))
        #expect(!events.contains { if case .closed(1, _) = $0 { true } else { false } })
    }
}
