extension LoopbackServer.Response {
    /// A deliberate misbehaviour ``LoopbackServer`` applies while answering, to test a client's error handling.
    ///
    /// This is an open set of static members rather than an enum, so that new faults can be added without breaking
    /// code that switches over them. Any ``LoopbackServer/Response/delay`` is waited out before the fault takes effect, and
    /// the request is always read completely and recorded first.
    public struct Fault: Sendable, Equatable, CustomStringConvertible {
        /// What the server does; internal so that the public surface stays an open set.
        enum Kind: Sendable, Equatable {
            case closeWithoutResponse
            case closeMidBody(afterBytes: Int)
            case chunked(chunkSize: Int)
            case drip(bytes: Int, interval: Duration)
            case resetConnection
            case misreportedContentRange(String)
            case raw(pieces: [[UInt8]], pause: Duration, thenClose: Bool)
        }

        /// What the server does.
        let kind: Kind

        /// Reads the request, then closes the connection (with a normal FIN) without sending a single byte.
        public static let closeWithoutResponse = Fault(kind: .closeWithoutResponse)

        /// Reads the request, then resets the connection: `SO_LINGER` with a zero timeout, then `close`, sends RST.
        public static let resetConnection = Fault(kind: .resetConnection)

        /// Sends the status line and headers with the full `Content-Length`, then only part of the body, then closes.
        ///
        /// No `Connection: close` is announced, as a real connection drop would not announce one either. If the body
        /// is not longer than `afterBytes`, the whole response is sent and the connection is closed afterwards.
        ///
        /// Streamed bodies are cut the same way, after that many bytes of body data (chunk framing is not counted),
        /// pauses included up to the cut; a chunked one is cut inside the chunk that holds the byte, so the final
        /// zero-size chunk never arrives. A range response (206) counts from the first byte it sends.
        ///
        /// - Parameter afterBytes: How many body bytes to send before closing; negative counts are treated as `0`.
        /// - Returns: The fault.
        public static func closeMidBody(afterBytes: Int) -> Fault {
            Fault(kind: .closeMidBody(afterBytes: max(0, afterBytes)))
        }

        /// Sends the body with `Transfer-Encoding: chunked`, in chunks of the given size, correctly framed.
        ///
        /// This is not a failure, but a framing some clients get wrong. An `HTTP/1.0` client cannot receive chunked
        /// encoding, so it gets the body delimited by closing the connection instead.
        ///
        /// - Parameter chunkSize: The number of body bytes per chunk; values below 1 are treated as 1.
        /// - Returns: The fault.
        public static func chunked(chunkSize: Int) -> Fault {
            Fault(kind: .chunked(chunkSize: max(1, chunkSize)))
        }

        /// Sends the whole `Content-Length` framed response, head included, a few bytes at a time with pauses.
        ///
        /// The pauses are cut short by ``LoopbackServer/stop()``.
        ///
        /// - Parameters:
        ///   - bytes: How many bytes to send at a time; values below 1 are treated as 1.
        ///   - interval: The pause between two sends; negative durations are treated as zero.
        /// - Returns: The fault.
        public static func drip(bytes: Int, every interval: Duration) -> Fault {
            Fault(kind: .drip(bytes: max(1, bytes), interval: max(.zero, interval)))
        }

        /// Answers with `206 Partial Content` and the given `Content-Range` value, whatever the request asked for.
        ///
        /// The body is the part of the response's body the request's `Range` asks for when that range is a single
        /// satisfiable one (see ``LoopbackServer/Response/servingRanges(etag:lastModified:)``), and the whole body
        /// otherwise, so that a client can be tested against a server that states a range it did not send, or sends a
        /// 206 nobody asked for.
        ///
        /// ```swift
        /// let wrong = LoopbackServer.Response.generated(byteCount: 1_000).servingRanges()
        /// server.route("/file", response: wrong.injecting(.misreportedContentRange("bytes 0-99/1000")))
        /// ```
        ///
        /// - Parameter value: The `Content-Range` field value to send verbatim, such as `bytes 0-99/1000`.
        /// - Returns: The fault.
        public static func misreportedContentRange(_ value: String) -> Fault {
            Fault(kind: .misreportedContentRange(value))
        }

        /// Sends these bytes verbatim instead of the response, one piece at a time with a pause between pieces, then
        /// closes the connection or keeps it open for the next request.
        ///
        /// The route's status, headers and body are ignored: the pieces are the whole answer, so a client can be
        /// tested against any malformed or surprising response, such as a status line that is not HTTP, a header
        /// without a colon, both `Content-Length` and `Transfer-Encoding`, a chunk size that is not hex, or bytes
        /// beyond the announced length.
        ///
        /// ```swift
        /// server.route("/broken", response: LoopbackServer.Response(fault: .raw(["HTTP/1.1 2x0 OK\r\n\r\n"])))
        /// ```
        ///
        /// - Parameters:
        ///   - pieces: The bytes to send, as text; each piece is sent as one write.
        ///   - pause: The wait between two pieces; cut short by ``LoopbackServer/stop()``.
        ///   - thenClose: Whether to close the connection after the last piece; `true` by default.
        /// - Returns: The fault.
        public static func raw(_ pieces: [String], pause: Duration = .zero, thenClose: Bool = true) -> Fault {
            Fault(kind: .raw(pieces: pieces.map { Array($0.utf8) }, pause: max(.zero, pause), thenClose: thenClose))
        }

        /// A short name for the fault, such as `closeMidBody(afterBytes: 10)`, for test output.
        public var description: String {
            switch kind {
            case .closeWithoutResponse:
                "closeWithoutResponse"
            case .closeMidBody(let afterBytes):
                "closeMidBody(afterBytes: \(afterBytes))"
            case .chunked(let chunkSize):
                "chunked(chunkSize: \(chunkSize))"
            case .drip(let bytes, let interval):
                "drip(bytes: \(bytes), every: \(interval))"
            case .resetConnection:
                "resetConnection"
            case .misreportedContentRange(let value):
                "misreportedContentRange(\(value.debugDescription))"
            case .raw(let pieces, _, let thenClose):
                "raw(\(pieces.count) pieces, thenClose: \(thenClose))"
            }
        }
    }
}
