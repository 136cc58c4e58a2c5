extension URLRequest {
    /// The request as URLSession can frame it with exactly one of `Content-Length` and `Transfer-Encoding`.
    ///
    /// FoundationNetworking (URLSession on Linux) cannot tell libcurl the length of an `httpBodyStream`, so libcurl
    /// always sends a stream with `Transfer-Encoding: chunked`, and passes a `Content-Length` header through beside
    /// it. A message with both is one that RFC 9112 §6.3 calls a request smuggling vector, and strict servers (nginx,
    /// gunicorn) refuse it with 400. There the `Content-Length` of a streamed request is left out, so that the
    /// chunked coding alone frames the body. Apple's URLSession sends such a stream with `Content-Length` alone, so
    /// the request is unchanged there, as it is whenever the body is not a stream.
    var framedForURLSession: URLRequest {
        // Only FoundationNetworking adds a chunked coding of its own to a stream whose length the request states.
        #if canImport(FoundationNetworking)
        guard httpBodyStream != nil, value(forHTTPHeaderField: "Content-Length") != nil else {
            return self
        }
        var request = self
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        return request
        #else
        return self
        #endif
    }
}
