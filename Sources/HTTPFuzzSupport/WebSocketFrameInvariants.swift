import Foundation
package import SluiceCore

/// What must hold for every byte stream the WebSocket frame parser reads: it reads the same messages and fails with
/// the same error whole and in chunks cut anywhere; no message passes the limits; every error is of the frame stage
/// and names the byte where the frame began and the rule or limit broken; and every message, framed again as a server
/// frames it, reads back as the same message, and framed as a client masks it, reads back the same on the server's
/// side, cut where the input cuts.
package enum WebSocketFrameInvariants {
    /// Tight limits, so that inputs of a few kilobytes reach them.
    package static let limits = WebSocketFrameParser.Limits(maximumFrameSize: 1_024, maximumMessageSize: 2_048)

    /// Reads an input's payload whole, then in its chunks, and compares.
    ///
    /// Flag 0 reads as after a negotiated `permessage-deflate`: a message whose first frame sets RSV1 is decompressed
    /// (each reading with a decompressor of its own), to at most the message limit.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) -> String? {
        let deflate = input.flag(0)
        let whole = read([input.payload], deflate: deflate)
        if let problem = whole.problem {
            return problem
        }
        let chunked = read(input.chunks, deflate: deflate)
        guard whole.steps == chunked.steps else {
            return "read whole: \(whole.steps)\nread in chunks cut at \(input.cuts): \(chunked.steps)"
        }
        // The masking key comes from the input.
        let key = input.payload.prefix(4).reduce(UInt32(0x5A5A_5A5A)) { $0 << 8 | UInt32($1) }
        for event in whole.events {
            guard let frame = frame(of: event, maskKey: nil) else { continue }
            let again = read([frame], deflate: false)
            guard again.events == [event], again.problem == nil else {
                return "\(event) framed again as \(frame) reads as \(again.steps)"
            }
            guard let masked = self.frame(of: event, maskKey: key) else { continue }
            let cuts = input.cuts.filter { $0 > 0 && $0 < masked.count }
            let pieces = zip([0] + cuts, cuts + [masked.count]).filter { $0 < $1 }.map { Array(masked[$0..<$1]) }
            let onServer = read(pieces, deflate: false, role: .server)
            guard onServer.events == [event], onServer.problem == nil else {
                return "\(event) framed as a client's \(masked) reads on the server as \(onServer.steps)"
            }
        }
        return nil
    }

    /// What reading gave, as text and as events, and the first broken invariant seen while reading.
    struct Reading {
        var steps: [String] = []
        var events: [WebSocketFrameParser.Event] = []
        var problem: String?
    }

    static func read(_ chunks: [[UInt8]], deflate: Bool, role: WebSocketFrameParser.Role = .client) -> Reading {
        var reading = Reading()
        var parser = WebSocketFrameParser(limits: limits, role: role)
        if deflate, let inflater = WebSocketFrameParser.fuzzingInflater() {
            parser = WebSocketFrameParser(limits: limits) { (payload, limit) throws(PerMessageDeflate.Refusal) in
                try inflater(payload, limit)
            }
        }
        do {
            for chunk in chunks {
                try chunk.withUnsafeBytes { bytes in
                    try parser.parse(bytes) { event in
                        reading.events.append(event)
                        reading.steps.append("\(event)")
                        if case .binary(let data) = event, data.count > limits.maximumMessageSize {
                            reading.problem = reading.problem ?? "a message of \(data.count) bytes passed the limit"
                        }
                        if case .text(let text) = event, text.utf8.count > limits.maximumMessageSize {
                            reading.problem =
                                reading.problem ?? "a message of \(text.utf8.count) bytes passed the limit"
                        }
                    }
                }
            }
        } catch let error as SluiceError {
            reading.steps.append("failed: \(error.message)")
            let names =
                error.message.hasPrefix(
                    "invalid WebSocket frame from the \(role == .client ? "server" : "client") at byte "
                )
                && (error.message.contains("RFC 6455") || error.message.contains("RFC 7692")
                    || error.message.contains("limit"))
            if error.code != .frame || error.stage != .frame || !names {
                reading.problem = "an error that does not name its rule, or of another stage: \(error.message)"
            }
            if ![1002, 1007, 1009].contains(parser.closeCode) {
                reading.problem = "a violation with the close code \(parser.closeCode)"
            }
        } catch {
            reading.problem = "an error of an unexpected type: \(error)"
        }
        return reading
    }

    /// An event framed as a server (no key) or a client (a key) sends it; `nil` for a close event, whose payload the
    /// parser has checked already.
    static func frame(of event: WebSocketFrameParser.Event, maskKey: UInt32?) -> [UInt8]? {
        let (opcode, payload): (WebSocketOpcode, [UInt8])
        switch event {
        case .text(let text): (opcode, payload) = (.text, Array(text.utf8))
        case .binary(let data): (opcode, payload) = (.binary, Array(data))
        case .ping(let data): (opcode, payload) = (.ping, Array(data))
        case .pong(let data): (opcode, payload) = (.pong, Array(data))
        case .close: return nil
        }
        guard payload.count <= limits.maximumFrameSize else { return nil }
        var frame: [UInt8] = []
        payload.withUnsafeBytes { WebSocketFrameEncoder.encode(opcode, payload: $0, maskKey: maskKey, into: &frame) }
        return frame
    }
}
