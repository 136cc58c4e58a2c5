package import SluiceCore

/// What must hold for every response the HTTP/1.1 response parser reads: it reads the same response whole and in
/// chunks cut anywhere, reports a head once and before any body, ends at most once, delivers exactly the bytes a
/// `Content-Length` announces, and fails with a message that names the part of the response at fault.
package enum ResponseParserInvariants {
    /// Tight limits, so that inputs of a few kilobytes reach them.
    package static let limits = HeadLimits(statusLineLength: 128, headerCount: 16, headBytes: 1_024)

    /// The words one of which every error message holds, naming the part of the response at fault.
    static let locations = [
        "status line", "header", "head", "chunk", "Content-Length", "Transfer-Encoding", "trailer", "body",
        "response", "protocols",
    ]

    /// Reads an input's payload whole, then in its chunks, and compares.
    ///
    /// Flag 0 makes the request a HEAD request; flag 1 closes the connection after the payload.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) -> String? {
        let isHead = input.flag(0)
        let closes = input.flag(1)
        let whole = read([input.payload], isHeadRequest: isHead, closes: closes)
        if let problem = whole.problem {
            return problem
        }
        let chunked = read(input.chunks, isHeadRequest: isHead, closes: closes)
        if let problem = chunked.problem {
            return problem
        }
        guard whole.steps == chunked.steps else {
            return "read whole: \(whole.steps)\nread in chunks cut at \(input.cuts): \(chunked.steps)"
        }
        return nil
    }

    /// What reading gave, as text, and the first broken invariant seen while reading.
    struct Reading {
        var steps: [String] = []
        var problem: String?
    }

    static func read(_ chunks: [[UInt8]], isHeadRequest: Bool, closes: Bool) -> Reading {
        var reading = Reading()
        var parser = ResponseParser(limits: limits, isHeadRequest: isHeadRequest)
        var head: ParsedHead?
        var body: [UInt8] = []
        var ended = false
        func record(_ event: ResponseParser.Event) {
            switch event {
            case .head(let parsed):
                if head != nil || ended {
                    reading.problem = reading.problem ?? "a second head, or a head after the end"
                }
                head = parsed
                let fields = parsed.fields.map { "\($0.name): \($0.value)" }
                let length = parsed.contentLength.map { " length \($0)" } ?? ""
                reading.steps.append(
                    "head \(parsed.status)\(parsed.keepAlive ? " keep-alive" : " close")\(length) \(fields)"
                )
            case .body(let bytes):
                if head == nil || ended {
                    reading.problem = reading.problem ?? "body bytes before the head or after the end"
                }
                body += bytes
            case .end:
                if head == nil || ended {
                    reading.problem = reading.problem ?? "an end before the head, or a second end"
                }
                ended = true
            }
        }
        var consumed = 0
        var total = 0
        do {
            for chunk in chunks {
                total += chunk.count
                guard !parser.isComplete else { continue }
                let taken = try chunk.withUnsafeBytes { try parser.parse($0, record) }
                guard taken <= chunk.count, taken == chunk.count || parser.isComplete else {
                    reading.problem = "the parser took \(taken) of \(chunk.count) bytes and is not complete"
                    return reading
                }
                consumed += taken
            }
            if closes {
                try parser.parseEndOfStream(record)
            }
        } catch let error as ResponseProtocolError {
            reading.steps.append("error: \(error.message)")
            if let problem = check(error) {
                reading.problem = reading.problem ?? problem
            }
        } catch {
            reading.problem = "an error of an unexpected type: \(error)"
        }
        if !body.isEmpty {
            reading.steps.append("body \(body)")
        }
        if ended {
            reading.steps.append("end, \(total - consumed) bytes left")
        }
        guard reading.problem == nil else { return reading }
        if ended != parser.isComplete {
            reading.problem = "the parser says complete: \(parser.isComplete), but the end was reported: \(ended)"
        } else if parser.bodyBytesRead != Int64(body.count) {
            reading.problem = "the parser counted \(parser.bodyBytesRead) body bytes and delivered \(body.count)"
        } else if ended, let length = head?.contentLength, length != Int64(body.count) {
            reading.problem = "Content-Length \(length) announced and \(body.count) bytes delivered"
        } else if head?.contentLength != nil && isHeadRequest {
            reading.problem = "a HEAD response with a body length"
        }
        return reading
    }

    /// Checks an error's message: not empty, naming a part of the response, bounded, and with no control character
    /// a peer sent that a log would print as is.
    static func check(_ error: ResponseProtocolError) -> String? {
        let message = error.message
        guard !message.isEmpty else { return "an error without a message" }
        guard locations.contains(where: message.contains) else {
            return "an error message that names no part of the response: \(message)"
        }
        guard message.utf8.count <= 640 else {
            return "an error message of \(message.utf8.count) bytes"
        }
        guard !message.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
            return "an error message with a control character: \(message.debugDescription)"
        }
        return nil
    }
}
