extension Client {
    /// Starts writing a request's body to a file, resuming a partial file an earlier download left.
    ///
    /// The body is written as it arrives, chunk by chunk, so memory stays constant whatever its size, to a partial
    /// file beside the destination, `<destination>.part`; once every byte has arrived it is moved onto
    /// `destination` in one step, replacing any file there. Until then `destination` is untouched.
    ///
    /// When the response names a validator (a strong `ETag`, or `Last-Modified`), it is recorded beside the partial
    /// file, in `<destination>.part.resume`, so that a later download to the same destination can resume: it sends
    /// `Range: bytes=<partial size>-` and `If-Range: <validator>`, and appends a `206 Partial Content` whose
    /// `Content-Range` continues the file. A `200` instead starts over from the first byte. See <doc:Downloads> for
    /// what happens to the partial file on each failure.
    ///
    /// The request goes through ``stream(_:)``, so every stage and decorator of the client applies to it; its
    /// parser and `parse` are not used.
    ///
    /// ```swift
    /// let result = try await client.download(GetReport(year: 2025), to: destination).finished()
    /// print(result.resumedFrom ?? 0)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request whose body is the file.
    ///   - destination: Where the file goes; its directory must exist and be writable.
    ///   - resuming: Whether to resume a partial file an earlier download left; `false` starts over.
    /// - Returns: The download, already started.
    public func download<R: Request>(_ request: R, to destination: URL, resuming: Bool = true) -> Download {
        let job = DownloadJob(client: self, request: request, destination: destination, resuming: resuming)
        return Download(destination: destination) { progress in
            do throws(SluiceError) {
                return .success(try await job.run(reporting: progress))
            } catch {
                return .failure(error)
            }
        }
    }
}
