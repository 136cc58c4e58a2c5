/// One download's work: where the partial file stands, the request with its range, the response's head checked
/// against the file, the body written to it, and the file moved into place.
struct DownloadJob<C: Client, R: Request>: Sendable {
    let client: C
    let request: R
    let destination: URL
    let resuming: Bool

    /// The partial file beside the destination, on the same volume, so that the last move is one rename.
    var partialURL: URL { destination.appendingPathExtension("part") }

    /// The partial file's ``ResumeRecord``.
    var recordURL: URL { partialURL.appendingPathExtension("resume") }

    /// Downloads the file, reporting the bytes written as they reach it.
    func run(
        reporting progress: AsyncStream<TransferProgress>.Continuation
    ) async throws(SluiceError) -> Download.Result {
        guard destination.isFileURL else {
            throw SluiceError(
                .deserialize,
                message: "a download's destination must be a file URL, not \(destination.absoluteString)",
                request: try? request.build()
            )
        }
        let file: PartialFile
        do {
            file = try PartialFile(opening: partialURL)
        } catch {
            throw fileError(error, request: try? request.build())
        }
        defer { file.closeDescriptor() }
        var partial = PartialDownload(file: file, recordURL: recordURL)
        do {
            try partial.prepare(resuming: resuming)
        } catch {
            partial.discard()
            throw fileError(error, request: try? request.build())
        }

        var headers: HTTPHeaders = [:]
        if let record = partial.record {
            headers = [.range: "bytes=\(partial.offset)-", .ifRange: record.validator]
        }
        let sent = HeaderSettingRequest(base: request, headers: headers)
        let urlRequest = try? sent.build()
        let head: HTTPResponse.Streamed
        do {
            head = try await client.stream(sent)
        } catch {
            if error.code == .status, error.status?.code == 416, let response = error.response {
                return try await rangeNotSatisfiable(
                    response,
                    partial: &partial,
                    request: urlRequest,
                    progress: progress
                )
            }
            // Nothing of this response reached the file: an earlier partial file stays as it was.
            partial.discardUnlessResumable()
            throw error
        }
        let response = HTTPResponse(status: head.status, headers: head.headers, url: head.url)
        if head.status.code == 416 {
            return try await rangeNotSatisfiable(response, partial: &partial, request: urlRequest, progress: progress)
        }
        guard head.status.isSuccessful else {
            partial.discardUnlessResumable()
            throw SluiceError(
                .status,
                message: "a download needs a successful status, not \(head.status)",
                request: urlRequest,
                response: response
            )
        }

        let expected: (bytes: Int64?, source: String)
        if head.status.code == 206 {
            let range: (bytes: Int64, completeLength: Int64?)
            do {
                range = try partial.check(head.headers)
            } catch {
                partial.discard()
                throw SluiceError(.status, message: error.message, request: urlRequest, response: response)
            }
            expected = (range.bytes, "Content-Range")
            do {
                try partial.resume(with: head.headers, completeLength: range.completeLength)
            } catch {
                partial.discard()
                throw fileError(error, request: urlRequest, response: response)
            }
        } else {
            do {
                expected = (try partial.startOver(with: head.headers), "Content-Length")
            } catch {
                partial.discard()
                throw fileError(error, request: urlRequest, response: response)
            }
        }

        let total = partial.record?.completeLength ?? expected.bytes.map { partial.offset + $0 }
        progress.yield(TransferProgress(bytesTransferred: partial.offset, expectedBytes: total))
        let received = try await write(
            head.body,
            to: partial,
            expecting: expected,
            request: urlRequest,
            response: response
        ) { received in
            progress.yield(TransferProgress(bytesTransferred: partial.offset + received, expectedBytes: total))
        }
        let size = partial.offset + received
        if total == nil {
            progress.yield(TransferProgress(bytesTransferred: size, expectedBytes: size))
        }
        return try complete(partial, response: response, size: size, request: urlRequest)
    }

    /// Writes a body to the partial file as it arrives, checking its length against what the head announced, and
    /// returns the bytes written.
    private func write(
        _ body: HTTPBody,
        to partial: PartialDownload,
        expecting expected: (bytes: Int64?, source: String),
        request: URLRequest?,
        response: HTTPResponse,
        reporting report: (Int64) -> Void
    ) async throws(SluiceError) -> Int64 {
        var received: Int64 = 0
        var chunks = body.makeAsyncIterator()
        while true {
            let chunk: Data?
            do {
                try Task.checkCancellation()
                chunk = try await chunks.next()
            } catch {
                partial.discardUnlessResumable()
                if let error = error as? SluiceError {
                    throw error
                }
                if error is CancellationError {
                    throw SluiceError(
                        .cancelled,
                        message: "the download was cancelled after \(partial.offset + received) bytes",
                        request: request,
                        response: response
                    )
                }
                throw SluiceError(
                    .transport,
                    message: "the response body failed after \(received) bytes: \(SluiceError.describe(error))",
                    request: request,
                    response: response
                )
            }
            guard let chunk else { break }
            if let bytes = expected.bytes, received + Int64(chunk.count) > bytes {
                partial.discard()
                throw SluiceError(
                    .transport,
                    message: "the response body is longer than the \(bytes) bytes its \(expected.source) announced",
                    request: request,
                    response: response
                )
            }
            do {
                try partial.file.append(chunk)
            } catch {
                partial.discard()
                throw fileError(error, request: request, response: response)
            }
            received += Int64(chunk.count)
            report(received)
        }
        if let bytes = expected.bytes, received < bytes {
            partial.discardUnlessResumable()
            throw SluiceError(
                .transport,
                message:
                    "the response body ended after \(received) of the \(bytes) bytes its \(expected.source) announced",
                request: request,
                response: response
            )
        }
        return received
    }

    /// Answers a `416 Range Not Satisfiable`: a partial file as long as the whole representation is complete, and
    /// is moved into place; any other is removed, and the download starts over without a range.
    private func rangeNotSatisfiable(
        _ response: HTTPResponse,
        partial: inout PartialDownload,
        request: URLRequest?,
        progress: AsyncStream<TransferProgress>.Continuation
    ) async throws(SluiceError) -> Download.Result {
        let length = response.headers[.contentRange].flatMap(ContentRange.init)?.completeLength
        if let record = partial.record, partial.offset > 0, let length, (record.completeLength ?? length) == length,
            partial.offset == length
        {
            progress.yield(TransferProgress(bytesTransferred: length, expectedBytes: length))
            return try complete(partial, response: response, size: length, request: request)
        }
        partial.discard()
        guard partial.record != nil else {
            throw SluiceError(
                .status,
                message: "the server cannot send the range asked for, though the download asked for none",
                request: request,
                response: response
            )
        }
        return try await DownloadJob(client: client, request: self.request, destination: destination, resuming: false)
            .run(reporting: progress)
    }

    /// Moves a complete partial file into place and removes its record.
    private func complete(
        _ partial: PartialDownload,
        response: HTTPResponse,
        size: Int64,
        request: URLRequest?
    ) throws(SluiceError) -> Download.Result {
        do {
            try partial.file.synchronize()
            partial.file.closeDescriptor()
            try PartialFile.move(partialURL, to: destination)
        } catch {
            partial.discard()
            throw fileError(error, request: request, response: response)
        }
        PartialFile.remove(recordURL)
        return Download.Result(
            url: destination,
            response: response,
            bytes: size,
            resumedFrom: partial.offset > 0 ? partial.offset : nil
        )
    }

    /// A failure of the file, as the error of a download's deserialize stage: writing the file is what a download
    /// does with the body in place of deserializing it.
    private func fileError(
        _ failure: FileFailure,
        request: URLRequest?,
        response: HTTPResponse? = nil
    ) -> SluiceError {
        SluiceError(
            .deserialize,
            stage: .deserialize,
            message: failure.message,
            request: request,
            response: response,
            underlyingError: failure.posixError ?? failure
        )
    }
}
