#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Sets the body to the chunks of an async sequence, sent once, as fast as the connection takes them.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/uploads")!)
    /// request.httpMethod = "PUT"
    /// request.setBody(chunks, length: 1_048_576)
    /// ```
    ///
    /// The sequence is iterated when the transport starts sending, in a task of its own, at most two chunks ahead of
    /// the socket; cancelling the request stops it, and its error fails the request. With a `length`, the request says
    /// it in `Content-Length` and a sequence that gives more or fewer bytes fails the request; without one, the body
    /// is sent chunked. A sequence can be iterated once, so a retry, a replay after 401 or a redirect that resends the
    /// body fails with an error that says so: use ``setBody(length:_:)`` where the request may be sent again.
    ///
    /// - Parameters:
    ///   - bytes: The body's chunks (`Data`, `[UInt8]`, `ArraySlice<UInt8>`…); empty ones are skipped.
    ///   - length: The body's length in bytes, when known.
    public mutating func setBody<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, length: Int64? = nil)
    where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        setBody(AsyncBodyStream.Source(once: bytes), length: length)
    }

    /// Sets the body to the chunks of an async sequence made afresh for each attempt, so that a retry, a replay after
    /// 401 or a redirect sends it again from the start.
    ///
    /// ```swift
    /// request.setBody(length: fileSize) { FileChunks(path: path) }
    /// ```
    ///
    /// Each attempt calls `makeBytes` when it starts sending; otherwise as ``setBody(_:length:)``.
    ///
    /// - Parameters:
    ///   - length: The body's length in bytes, when known; every sequence made must give exactly that many.
    ///   - makeBytes: Makes the body's chunks, from the start.
    public mutating func setBody<Bytes: AsyncSequence & SendableMetatype>(
        length: Int64? = nil,
        _ makeBytes: @escaping @Sendable () -> Bytes
    ) where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        setBody(AsyncBodyStream.Source(making: makeBytes), length: length)
    }

    private mutating func setBody(_ source: AsyncBodyStream.Source, length: Int64?) {
        httpBodyStream = AsyncBodyStream(source)
        setValue(length.map { String($0) }, forHTTPHeaderField: "Content-Length")
    }

    /// The body as an async sequence's stream, when it is one.
    package var asyncBody: AsyncBodyStream? { httpBodyStream as? AsyncBodyStream }

    /// Whether the body can be sent again on another attempt.
    ///
    /// There is no stream, or the stream is an async sequence made afresh for each attempt. A stream of any other
    /// kind is read once.
    package var bodyCanBeSentAgain: Bool {
        guard let stream = httpBodyStream else { return true }
        return (stream as? AsyncBodyStream)?.source.isReplayable ?? false
    }

    /// The request for one attempt: an async body gets a stream of its own, since a stream is opened once; any other
    /// request is itself.
    package var forThisAttempt: URLRequest {
        guard let body = asyncBody else { return self }
        var request = self
        request.httpBodyStream = body.forAttempt()
        return request
    }
}
