import Foundation

/// The request side of an HTTP/1.1 exchange as bytes, with no I/O: the head, then the body framed as the head
/// declared it (a `Content-Length` held to, or chunks and the last chunk).
///
/// With ``ResponseParser`` for the other direction it is the connection's codec: the connection only moves the bytes
/// these two produce and take between them and the byte stream, so that the framing rules are tested without a socket
/// and a connection that carries several streams (HTTP/2) can put another codec in their place.
struct RequestEncoder {
    /// The body's framing, from the head.
    let framing: RequestHead.BodyFraming
    /// The body bytes framed so far.
    private(set) var bodyBytesEncoded: Int64 = 0
    /// Whether the body's end has been encoded.
    private(set) var isComplete = false

    /// Makes the encoder of one request.
    ///
    /// - Parameter framing: How its head said the body follows.
    init(framing: RequestHead.BodyFraming) {
        self.framing = framing
    }

    /// The body bytes still owed under a `Content-Length`; `nil` for a chunked body.
    var bodyBytesRemaining: Int64? {
        guard case .length(let length) = framing else { return nil }
        return length - bodyBytesEncoded
    }

    /// Appends the head and, for a body of data, the whole body, which ends the request.
    ///
    /// - Parameters:
    ///   - head: The request's head.
    ///   - body: The body of data, if the request has one; a stream's is given piece by piece to
    ///     ``encodeBody(_:into:)``.
    ///   - output: Where the bytes go.
    /// - Throws: ``SluiceError`` when the body's size is not the head's `Content-Length`.
    mutating func encodeHead(_ head: RequestHead, body: Data?, into output: inout [UInt8]) throws(SluiceError) {
        output.append(contentsOf: head.bytes)
        guard let body else {
            isComplete = framing == .length(0)
            return
        }
        try encodeBody(body, into: &output)
        try encodeEnd(into: &output)
    }

    /// Appends a piece of the body, framed: as it is under a `Content-Length`, as a chunk otherwise.
    ///
    /// - Parameters:
    ///   - bytes: The piece; an empty one appends nothing (an empty chunk would end the body).
    ///   - output: Where the bytes go.
    /// - Throws: ``SluiceError`` when the body would pass its `Content-Length`.
    mutating func encodeBody(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(SluiceError) {
        guard !bytes.isEmpty else { return }
        precondition(!isComplete, "a body piece after the end of the body")
        if let remaining = bodyBytesRemaining {
            guard Int64(bytes.count) <= remaining else {
                throw RequestEncoder.longerThanItsLength(bodyBytesEncoded + remaining)
            }
            output.append(contentsOf: bytes)
        } else {
            output.append(contentsOf: String(bytes.count, radix: 16).utf8)
            output.append(contentsOf: [13, 10])
            output.append(contentsOf: bytes)
            output.append(contentsOf: [13, 10])
        }
        bodyBytesEncoded += Int64(bytes.count)
    }

    /// Appends what ends the body: the last chunk of a chunked body, nothing under a `Content-Length`.
    ///
    /// - Parameter output: Where the bytes go.
    /// - Throws: ``SluiceError`` when the body ended short of its `Content-Length`.
    mutating func encodeEnd(into output: inout [UInt8]) throws(SluiceError) {
        guard !isComplete else { return }
        if let remaining = bodyBytesRemaining, remaining > 0 {
            throw RequestEncoder.shortOfItsLength(bodyBytesEncoded, of: bodyBytesEncoded + remaining)
        }
        if framing == .chunked {
            output.append(contentsOf: "0\r\n\r\n".utf8)
        }
        isComplete = true
    }

    /// The error of a body stream that gives more than its `Content-Length`.
    static func longerThanItsLength(_ length: Int64) -> SluiceError {
        SluiceError(.transport, message: "the request body stream is longer than its Content-Length of \(length) bytes")
    }

    /// The error of a body stream that ends before its `Content-Length`.
    static func shortOfItsLength(_ sent: Int64, of length: Int64) -> SluiceError {
        SluiceError(
            .transport,
            message: "the request body stream ended after \(sent) bytes, short of its Content-Length of \(length)"
        )
    }
}
