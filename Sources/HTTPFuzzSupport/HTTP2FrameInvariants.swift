package import SluiceCore

/// What must hold for every byte stream an HTTP/2 server may send Sluice's HTTP/2 session (``HTTP2Session``), after
/// its SETTINGS frame: nothing crashes; a response read whole comes to the same head, body and trailers whether the bytes
/// arrive whole or cut anywhere, and where neither reading fails, the same responses are whole; no field section passes
/// the limits; and every error names HTTP/2.
///
/// Three requests are open when the bytes arrive (streams 1, 3 and 5; the second with a body), so that frames for them
/// are answers and not strays.
package enum HTTP2FrameInvariants {
    /// Tight limits, so that inputs of a few kilobytes reach them.
    package static let limits = HTTP2Session.Limits(
        maximumFieldListSize: 512,
        maximumFieldCount: 8,
        streamWindow: 1_024
    )

    /// An empty SETTINGS frame: the server's preface, before the input.
    static let settings: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0]

    /// Reads an input's payload whole, then in its chunks, and compares.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold (or nghttp2 is not loaded here).
    package static func violation(in input: ChunkedInput) -> String? {
        guard let library = try? NGHTTP2.shared.get() else { return nil }
        let whole = read([input.payload], library)
        if let problem = whole.problem {
            return problem
        }
        let chunked = read(input.chunks, library)
        if let problem = chunked.problem {
            return "in chunks cut at \(input.cuts): \(problem)"
        }
        // A response that both readings saw whole must be the same response: a cut in the bytes must never change a
        // head, a body or trailers. Around a reset or a connection error, which streams nghttp2 reports closed, and
        // when, depends on when this side wrote (a reset it makes closes its stream once written) and on where a read
        // ended (Debian's 1.52, patched against CONTINUATION floods, counts a CONTINUATION frame again for each piece
        // of its payload a read ends inside): those are not compared.
        let complete = { (reading: Reading) in
            reading.streams.filter { $0.value.ended && $0.value.closed == "cleanly" }
        }
        let (wholeDone, chunkedDone) = (complete(whole), complete(chunked))
        for stream in Set(wholeDone.keys).intersection(chunkedDone.keys) where wholeDone[stream] != chunkedDone[stream]
        {
            return
                "stream \(stream) read whole: \(wholeDone[stream] ?? Stream())\nread in chunks cut at \(input.cuts): "
                + "\(chunkedDone[stream] ?? Stream())"
        }
        if whole.failure == nil, chunked.failure == nil, wholeDone.keys != chunkedDone.keys {
            return "read whole: \(whole)\nread in chunks cut at \(input.cuts): \(chunked)"
        }
        return nil
    }

    /// What one stream came to.
    struct Stream: Equatable, CustomStringConvertible {
        var head: String?
        var body: [UInt8] = []
        var trailers: String?
        var ended = false
        var closed: String?

        var description: String {
            "head \(head ?? "-"), \(body.count) bytes, trailers \(trailers ?? "-"), ended \(ended), closed \(closed ?? "-")"
        }
    }

    /// What a reading gave: each stream, the connection's error, and the first broken invariant.
    struct Reading: CustomStringConvertible {
        var streams: [Int32: Stream] = [:]
        var failure: String?
        var problem: String?

        var description: String {
            streams.keys.sorted().map { "stream \($0): \(streams[$0] ?? Stream())" }.joined(separator: "; ")
                + "; failure \(failure ?? "-")"
        }
    }

    static func read(_ chunks: [[UInt8]], _ library: NGHTTP2) -> Reading {
        var reading = Reading()
        do {
            let session = try HTTP2Session(library: library, limits: limits)
            for path in ["/a", "/b", "/c"] {
                let fields = [(":method", "GET"), (":scheme", "https"), (":authority", "example.com"), (":path", path)]
                var left = path == "/b" ? 100 : 0
                _ = try session.submitRequest(
                    fields.map { (name: $0.0, value: $0.1) },
                    body: left == 0
                        ? nil
                        : { buffer in
                            guard left > 0 else { return .end }
                            let count = min(left, buffer.count)
                            buffer.initializeMemory(as: UInt8.self, repeating: 0x61)
                            left -= count
                            return .bytes(count)
                        }
                )
            }
            _ = try session.output()
            for chunk in [settings] + chunks {
                let events = try chunk.withUnsafeBytes { try session.receive($0) }
                note(events, in: &reading, session: session)
                _ = try session.output()
                note(session.takeEvents(), in: &reading, session: session)
                if reading.problem != nil {
                    return reading
                }
            }
        } catch let error as SluiceError {
            reading.failure = error.message
            if !error.message.contains("HTTP/2") {
                reading.problem = "an error that does not name HTTP/2: \(error.message)"
            }
        } catch {
            reading.problem = "an error that is not a SluiceError: \(error)"
        }
        return reading
    }

    /// Adds events to a reading, taking each body's bytes as they come, and checks them.
    static func note(_ events: [HTTP2Session.Event], in reading: inout Reading, session: HTTP2Session) {
        for event in events {
            switch event {
            case .head(let stream, let status, let fields):
                if fields.count > limits.maximumFieldCount {
                    reading.problem = "stream \(stream)'s head has \(fields.count) fields, past the limit"
                }
                if !(200...999).contains(status) {
                    reading.problem = "stream \(stream)'s head has the status \(status)"
                }
                reading.streams[stream, default: Stream()].head = "\(status) \(fields)"
            case .data(let stream, let bytes):
                reading.streams[stream, default: Stream()].body += bytes
                session.consume(bytes.count, on: stream)
            case .trailers(let stream, let fields):
                if fields.count > limits.maximumFieldCount {
                    reading.problem = "stream \(stream)'s trailers have \(fields.count) fields, past the limit"
                }
                reading.streams[stream, default: Stream()].trailers = "\(fields)"
            case .end(let stream):
                reading.streams[stream, default: Stream()].ended = true
            case .closed(let stream, let error):
                if let error, !error.message.contains("HTTP/2") {
                    reading.problem =
                        "stream \(stream) closed with an error that does not name HTTP/2: \(error.message)"
                }
                reading.streams[stream, default: Stream()].closed = error?.message ?? "cleanly"
            case .refused(let stream):
                reading.streams[stream, default: Stream()].closed = "refused"
            case .settings, .goAway, .pingAcknowledged:
                break
            }
        }
    }
}
