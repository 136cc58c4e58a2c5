/// A response's head that does not fit the partial file: the message says what was expected and what came.
struct DownloadMismatch: Error {
    let message: String
}

/// The partial file of a download and its resume record, as the download finds them and as the response changes
/// them.
struct PartialDownload {
    let file: PartialFile
    let recordURL: URL
    /// The record, when the partial file can be resumed.
    private(set) var record: ResumeRecord?
    /// Where the body of the response is written: the size of the partial file kept, 0 when starting over.
    private(set) var offset: Int64 = 0

    init(file: PartialFile, recordURL: URL) {
        self.file = file
        self.recordURL = recordURL
    }

    /// Finds how much of the file an earlier download left, and keeps it when it can be resumed; starts over
    /// otherwise.
    mutating func prepare(resuming: Bool) throws(FileFailure) {
        let size = try file.seekToEnd()
        if resuming, size > 0, let record = ResumeRecord.load(from: recordURL),
            record.completeLength.map({ size <= $0 }) ?? true
        {
            self.record = record
            offset = size
        } else {
            if size > 0 {
                try file.truncateToEmpty()
            }
            PartialFile.remove(recordURL)
        }
    }

    /// Checks a `206 Partial Content`: its `Content-Range` must continue the file to its end, and its validator must
    /// be the one recorded; returns the bytes its body holds and the length of the whole representation, when known.
    func check(_ headers: HTTPHeaders) throws(DownloadMismatch) -> (bytes: Int64, completeLength: Int64?) {
        if headers.contentIsEncoded {
            throw DownloadMismatch(
                message: "the partial response is encoded (Content-Encoding: \(headers[.contentEncoding] ?? "")): its "
                    + "bytes cannot continue the decoded file"
            )
        }
        let recorded = record?.completeLength
        let value = headers[.contentRange]
        let contentRange = value.flatMap(ContentRange.init)
        let complete = recorded ?? contentRange?.completeLength
        guard let contentRange, let range = contentRange.range, range.lowerBound == offset,
            recorded == nil || contentRange.completeLength == nil || contentRange.completeLength == recorded,
            complete.map({ range.upperBound + 1 == $0 }) ?? true
        else {
            let wanted = complete.map { "bytes \(offset)-\($0 - 1)/\($0)" } ?? "bytes \(offset)-<last>/<length>"
            throw DownloadMismatch(
                message: "the partial response does not continue the file: expected Content-Range \(wanted), received "
                    + (value.map { "\"\($0)\"" } ?? "none")
            )
        }
        if let record, let replacement = record.replacement(in: headers) {
            throw DownloadMismatch(
                message:
                    "the file changed on the server: its \(record.field.rawValue) was \(record.validator) when the "
                    + "partial file was written, and is now \(replacement)"
            )
        }
        return (range.upperBound - range.lowerBound + 1, complete)
    }

    /// Takes a `206 Partial Content` that ``check(_:)`` accepted: records its validator when the file had none (a
    /// server may answer a request without a range with the whole representation as one range), or the length when
    /// the record lacked it.
    mutating func resume(with headers: HTTPHeaders, completeLength: Int64?) throws(FileFailure) {
        if let record {
            guard record.completeLength == nil, let completeLength else { return }
            self.record?.completeLength = completeLength
        } else {
            record = ResumeRecord(headers: headers, completeLength: completeLength)
        }
        try record?.save(to: recordURL)
    }

    /// Takes a full response: empties the file, records the new validator, and returns the bytes its
    /// `Content-Length` announces when the body is not encoded.
    mutating func startOver(with headers: HTTPHeaders) throws(FileFailure) -> Int64? {
        if offset > 0 {
            try file.truncateToEmpty()
            offset = 0
        }
        let length =
            headers.contentIsEncoded
            ? nil
            : headers[.contentLength].flatMap {
                Int64($0.trimmingCharacters(in: .whitespaces))
            }
        record = ResumeRecord(headers: headers, completeLength: length)
        if let record {
            try record.save(to: recordURL)
        } else {
            PartialFile.remove(recordURL)
        }
        return length
    }

    /// Removes the partial file and its record.
    func discard() {
        file.closeDescriptor()
        PartialFile.remove(file.url)
        PartialFile.remove(recordURL)
    }

    /// Keeps the partial file and its record when they can be resumed, and removes them otherwise.
    func discardUnlessResumable() {
        if record == nil || ((try? file.seekToEnd()) ?? 0) == 0 {
            discard()
        }
    }
}
