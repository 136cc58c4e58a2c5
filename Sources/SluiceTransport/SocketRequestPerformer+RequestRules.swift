import Foundation

/// The rules each hop of a request follows on its way: the cookies sent and stored, and the redirects followed.
extension SocketRequestPerformer {
    /// The request with the cookies of ``cookieStorage`` for its URL, their values noted as credentials so that logs
    /// and fixtures hide them.
    func withStoredCookies(_ request: URLRequest) -> URLRequest {
        let hostCookies = request.storedCookies(in: cookieStorage)
        for cookie in hostCookies {
            TransportScope.noteCredential(cookie.value)
        }
        return request.adding(hostCookies)
    }

    /// The request as the performer would send it now: with the stored cookies it would send, its `User-Agent` and
    /// the `Accept-Encoding` of the codings it decodes, where the request has none of its own; for a URL the
    /// performer does not serve, as the fallback would send it.
    ///
    /// A cache above the performer matches `Vary` against it (see <doc:HTTPCaching>). The fields that frame the
    /// body, `Host` (the URL's authority) and a proxy's `Proxy-Authorization` are left out: they say nothing a
    /// response varies on.
    ///
    /// - Parameter request: The request as the performer would be given it.
    /// - Returns: The request with the cookies, `Accept-Encoding` and `User-Agent` it would be sent.
    public func requestAsSent(_ request: URLRequest) -> URLRequest {
        let served = request.url.flatMap { url in
            Origin(url, unixSocketPath: configuration.unixSocketPath, servesHTTPS: handlesHTTPS)
        }
        guard served != nil else { return fallback.requestAsSent(request) }
        return withHeadFields(request.addingStoredCookies(from: cookieStorage))
    }

    /// The request with the fields ``RequestHead`` adds when the request has none of its own: the `User-Agent`, and
    /// the `Accept-Encoding` of the codings decoded here unless bodies are not decoded or the request asks for a
    /// range.
    func withHeadFields(_ request: URLRequest) -> URLRequest {
        var request = request
        if request.value(forHTTPHeaderField: "User-Agent") == nil {
            request.setValue(RequestHead.defaultUserAgent, forHTTPHeaderField: "User-Agent")
        }
        if configuration.decompressesBodies, let offered = ContentCoding.acceptEncoding,
            request.value(forHTTPHeaderField: "Accept-Encoding") == nil,
            request.value(forHTTPHeaderField: "Range") == nil
        {
            request.setValue(offered, forHTTPHeaderField: "Accept-Encoding")
        }
        return request
    }

    /// Reports the first hop of a request as it is sent, its cookies and head fields added, to the cache that
    /// listens, if any.
    func reportSent(_ withCookies: URLRequest) {
        guard let report = TransportScope.sentRequest else { return }
        report.note(withHeadFields(withCookies))
    }

    /// Stores the cookies a response sets in ``cookieStorage``, when the request handles cookies.
    func storeCookies(of response: some ResponseHead, for request: URLRequest) {
        guard let storage = cookieStorage, request.httpShouldHandleCookies, let url = request.url else {
            return
        }
        let values = response.headers.values(for: "Set-Cookie")
        guard !values.isEmpty else { return }
        storage.storeCookies(values, from: url, mainDocumentURL: request.mainDocumentURL)
    }

    /// The request a redirect asks for, or `nil` when the response is not one to follow.
    ///
    /// - Throws: ``SluiceError`` when ``RedirectRule`` refuses the redirect; nothing is sent to its target, and the
    ///   fallback never sees it.
    func redirect(_ request: URLRequest, status: Int, headers: HTTPHeaders) throws(SluiceError) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(status), configuration.maximumRedirects > 0,
            let location = headers[.location], let from = request.url,
            let target = URL(string: location, relativeTo: from)?.absoluteURL
        else { return nil }
        let allowingDowngrade = configuration.followsRedirectsFromHTTPSToHTTP
        if let reason = RedirectRule.refusal(
            from: from,
            location: location,
            to: target,
            allowingDowngrade: allowingDowngrade
        ) {
            throw RedirectRule.refused(to: target, because: reason)
        }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        // As browsers and URLSession do: 303 turns any method but HEAD into GET, and so do 301 and 302 a POST.
        if (status == 303 && method != "HEAD") || ([301, 302].contains(status) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Length", "Content-Type", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next.droppingCredentials(leaving: from)
    }

    func tooManyRedirects(_ request: URLRequest) -> SluiceError {
        SluiceError(
            .transport,
            message:
                "more than \(configuration.maximumRedirects) redirects, starting at \(request.url?.absoluteString ?? "?")",
            underlyingError: URLError(.httpTooManyRedirects)
        )
    }
}
