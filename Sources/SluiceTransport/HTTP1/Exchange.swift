import Foundation

/// One request and its response on a connection: who waits for the response, and how far it has come.
///
/// Made by the task that sends the request, then touched on the connection's event loop only, apart from
/// ``cancelled``, which the cancelling task sets. `@unchecked Sendable` for that reason.
final class Exchange: @unchecked Sendable {
    /// Who waits, and for what.
    enum Delivery {
        /// The whole response, its body at most ``Exchange/bodyLimit`` bytes.
        case buffered(CheckedContinuation<HTTPResponse, any Error>)
        /// The head, with the body to follow through a writer.
        case streamed(CheckedContinuation<HTTPResponse.Streamed, any Error>)
    }

    /// The request as sent.
    let request: URLRequest
    /// The serialized head and the body's framing.
    let head: RequestHead
    /// The longest wait for a byte of the response; `nil` for none.
    let idleTimeout: Duration?
    /// Who wants to know how much of the body was sent, and the body's length when known.
    let upload: TransportScope.UploadReport?
    /// The largest buffered body, in bytes, decoded or as sent.
    let bodyLimit: Int
    /// Set by the cancelling task; read on the loop, so that a cancellation that comes first is not missed.
    let cancelled = Locked(false)

    /// Who waits; `nil` once told (the head of a streamed response has been handed out).
    var delivery: Delivery?
    /// The writer of a streamed body, once its head has been handed out.
    var writer: HTTPBody.Writer?
    /// The body of a buffered response so far.
    var body = Data()
    /// The response's head, once read.
    var responseHead: ParsedHead?
    /// The body bytes of the request sent.
    var bodyBytesSent: Int64 = 0
    /// When a byte last moved, for the idle timeout.
    var lastProgress: ContinuousClock.Instant
    /// When the exchange was made, just before its request is sent.
    let started: ContinuousClock.Instant
    /// When the first byte of the response arrived, for the limit on the time to a complete head.
    var responseStarted: ContinuousClock.Instant?
    /// Whether the reader of a streamed body is behind and the socket is not being read.
    var paused = false
    /// Whether sending waits for the next chunk of an async body, which the idle timeout then counts against it.
    var awaitingBody = false
    /// How a body with a `Content-Encoding` is decoded, when the performer asked for encoded bodies itself; `nil` to
    /// hand every body over as sent.
    var decoding: ContentDecoding?
    /// The decoder of a buffered body being decoded.
    var decoder: ContentDecoder?
    /// The HTTP version of the connection carrying it, as the response names it: `HTTP/1.1` or `HTTP/2`.
    var protocolVersion = "HTTP/1.1"
    /// The fields that came after a buffered body (HTTP/2 trailers).
    var trailers: HTTPHeaders = [:]
    /// The HTTP/2 stream carrying it, once its request is submitted on one.
    var http2Stream: Int32?
    /// The bytes of a streamed body read in the loop's current round and not yet handed to the reader: they go to it
    /// together at the round's end (``writeUnwritten(readAhead:)``), one wake-up of its task a round rather than one
    /// a read.
    var unwritten = Data()
    /// The head of a streamed response, and the task waiting for it, until the end of the loop's round.
    var heldHead: (CheckedContinuation<HTTPResponse.Streamed, any Error>, HTTPResponse.Streamed)?

    /// Creates an exchange.
    init(
        request: URLRequest,
        head: RequestHead,
        idleTimeout: Duration?,
        upload: TransportScope.UploadReport?,
        bodyLimit: Int,
        now: ContinuousClock.Instant
    ) {
        self.request = request
        self.head = head
        self.idleTimeout = idleTimeout
        self.upload = upload
        self.bodyLimit = bodyLimit
        self.lastProgress = now
        self.started = now
    }

    /// Whether the response's head has been handed out, or its whole body taken in.
    var isAnswered: Bool { delivery == nil }

    /// Ends the exchange with an error: the waiting task throws it, or the streamed body does after the bytes it
    /// has handed out.
    func fail(_ error: any Error) {
        switch delivery {
        case .buffered(let continuation):
            continuation.resume(throwing: error)
        case .streamed(let continuation):
            continuation.resume(throwing: error)
        case nil:
            _ = writeUnwritten(readAhead: .max)
            writer?.finish(throwing: error)
            writer = nil
            // A head held for the round's end goes out now: its body throws the error after what it had.
            releaseHead()
        }
        delivery = nil
    }
}

/// A connection failure that happened on a kept-alive connection before any byte of the response: the server
/// had most likely closed it while it sat idle, and an idempotent request is sent again on a fresh connection.
struct StaleConnection: Error {
    /// The error to report if the request is not sent again.
    var error: SluiceError
}
