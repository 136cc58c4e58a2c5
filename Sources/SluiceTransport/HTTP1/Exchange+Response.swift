import Foundation

extension Exchange {
    /// Takes the response's head: a buffered response is held to its body's limit, with a decoder for a body with a
    /// `Content-Encoding`; a streamed one gets its body's stream, decoded as it is read when it is encoded, and is
    /// handed out at once.
    ///
    /// - Parameters:
    ///   - head: The head as the parser read it.
    ///   - pace: Ties a streamed body's writer to the connection's reading, before the head is handed out.
    /// - Throws: ``SluiceError`` when the announced length passes a buffered body's limit, or its codings cannot be
    ///   decoded within the limits.
    func takeHead(_ head: ParsedHead, pace: (HTTPBody.Writer) -> Void) throws {
        responseHead = head
        let codings = decoding?.codings(in: head.fields)
        switch delivery {
        case .buffered:
            let limit = bodyLimit
            if let length = head.contentLength {
                guard length <= Int64(limit) else {
                    throw HTTPBody.tooLarge(size: "\(length) bytes", limit: limit)
                }
                body.reserveCapacity(Int(length))
            }
            if let codings, var decoding {
                decoding.maximumSize = limit
                decoder = try ContentDecoder(codings: codings, limits: decoding)
            }
        case .streamed(let continuation):
            let (encoded, writer) = HTTPBody.makeStream(expectedLength: head.contentLength)
            // A body with a Content-Encoding is decoded as it is read, on the reader's task.
            var streamed = encoded
            if let codings, let decoding {
                streamed = DecodedBody(encoded: encoded, codings: codings, limits: decoding).body
            }
            self.writer = writer
            delivery = nil
            pace(writer)
            let whole = response(head: head)
            var streamedResponse = HTTPResponse.Streamed(
                status: whole.status,
                headers: whole.headers,
                url: whole.url,
                body: streamed
            )
            streamedResponse.protocolVersion = protocolVersion
            // Handed over at the end of the loop's round (``releaseHead()``): a body that arrived whole with its
            // head is then read without waking the loop or the reader again.
            heldHead = (continuation, streamedResponse)
        case nil:
            break
        }
    }

    /// Takes bytes of the body: a buffered body keeps them (decoded, when it is encoded) within its limit, a streamed
    /// one writes them to its reader.
    ///
    /// - Parameters:
    ///   - bytes: The body's bytes, valid during the call only.
    ///   - readAhead: The bytes a streamed body may hold unread.
    /// - Returns: Whether the reader of a streamed body is behind, and the connection should stop reading. A streamed
    ///   body's bytes wait in ``unwritten`` until the round's end, or until they fill `readAhead`.
    /// - Throws: ``SluiceError`` when a buffered body passes its limit or does not decode.
    func takeBody(_ bytes: UnsafeRawBufferPointer, readAhead: Int) throws -> Bool {
        if case .buffered = delivery {
            if let decoder {
                decoder.feed(Data(bytes))
                while let chunk = try decoder.next() {
                    body.append(chunk)
                }
            } else {
                guard body.count + bytes.count <= bodyLimit else {
                    throw HTTPBody.tooLarge(size: "more than \(bodyLimit) bytes", limit: bodyLimit)
                }
                body.append(contentsOf: bytes)
            }
        } else if writer != nil {
            unwritten.append(contentsOf: bytes)
            return unwritten.count >= readAhead && writeUnwritten(readAhead: readAhead)
        }
        return false
    }

    /// Hands the waiting task the head of a streamed response held until the end of the loop's round, if one is held.
    func releaseHead() {
        guard let (continuation, response) = heldHead else { return }
        heldHead = nil
        continuation.resume(returning: response)
    }

    /// Hands a streamed body's reader the bytes read for it and not yet handed over.
    ///
    /// - Parameter readAhead: The bytes the body may hold unread.
    /// - Returns: Whether the reader is behind, and the connection should stop reading.
    func writeUnwritten(readAhead: Int) -> Bool {
        guard !unwritten.isEmpty, let writer else { return false }
        let chunk = unwritten
        unwritten = Data()
        return writer.write(chunk) > readAhead
    }

    /// The response for its head, with the buffered body, the trailers and the version of the connection that
    /// carried it.
    func response(head: ParsedHead) -> HTTPResponse {
        var response = HTTPResponse(
            status: HTTPStatus(code: head.status),
            headers: HTTPHeaders(head.fields.map { HTTPHeaders.Field(name: Header($0.name), value: $0.value) }),
            body: body,
            url: request.url
        )
        response.protocolVersion = protocolVersion
        response.trailers = trailers
        return response
    }
}
