import Foundation

/// A request as HTTP/1.1 sends it: the head's bytes and how the body follows.
package struct RequestHead {
    /// How the body is framed on the wire.
    package enum BodyFraming: Equatable {
        /// No body, or one of this many bytes sent after the head.
        case length(Int64)
        /// A stream of unknown length, in chunks.
        case chunked
    }

    /// The request line and header fields, ending with the empty line.
    package var bytes: Data
    /// The body's framing.
    package var framing: BodyFraming
    /// The method, as sent.
    package var method: String
    /// Whether the head offers the codings it was given to offer, so that the response's body is the performer's to
    /// decode.
    package var offersEncodings = false
    /// The header fields the head carries after the `Host` and `User-Agent` it adds, sorted by name: what
    /// ``http2Fields(scheme:)`` sends over HTTP/2.
    package var fields: [(name: String, value: String)]
    /// The request's authority: its own `Host` field, else the origin's.
    package var authority: String
    /// The path and query, as the request line carries them.
    package var path: String
    /// Whether the head adds the default `User-Agent`, which the request does not set.
    package var addsUserAgent: Bool

    /// Serializes a request for a connection to its origin.
    ///
    /// The `Host` field is the URL's authority (`localhost` for a Unix socket) unless the request sets one. A body
    /// of data is sent with its `Content-Length`; a stream with the `Content-Length` the request gives, or chunked
    /// when it gives none, and never both (a request that sets `Transfer-Encoding` fails the validation); no body at
    /// all, with `Content-Length: 0` for a method that gives content a meaning (not GET, HEAD, DELETE, OPTIONS,
    /// TRACE or CONNECT) unless the request gives a length, as RFC 9110 (section 8.6) asks. The codings
    /// the performer decodes itself go as `Accept-Encoding` when the request names none of its own and asks for no
    /// range, whose offsets count the bytes as sent (``offersEncodings``).
    ///
    /// Through an HTTP proxy an `http://` request names its origin in absolute form (`GET http://host/path`), with the
    /// proxy's credentials, if its URL has any, as `Proxy-Authorization`; through a tunnel (`CONNECT`, SOCKS5) it
    /// goes in origin form, without the request's own `Proxy-Authorization`, which is for a proxy, not the origin.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - target: Where it goes.
    ///   - acceptEncoding: The codings to offer, as an `Accept-Encoding` value; `nil` to offer none.
    /// - Throws: ``SluiceError`` when the request breaks a rule of `URLRequest.validateForSending(as:)`: the client
    ///   checked it, but a performer can be called directly, and nothing the caller could not have meant goes out.
    package init(_ request: URLRequest, target: Origin, offering acceptEncoding: String? = nil) throws(SluiceError) {
        try request.validateForTransport()
        let method = request.httpMethod ?? "GET"
        self.method = method
        let body = request.httpBody
        let streamsBody = body == nil && request.httpBodyStream != nil
        // The proxy's own credentials, from its URL, take the place of the request's; through a tunnel the request
        // reaches the origin, which must not see what was meant for a proxy.
        let proxyAuthorization = target.sendsAbsoluteForm ? target.proxy?.basicAuthorization : nil
        let dropsProxyAuthorization = proxyAuthorization != nil || (target.proxy != nil && !target.sendsAbsoluteForm)
        // One pass over the request's fields, which are few, noting the names the transport looks for.
        let given = request.allHTTPHeaderFields ?? [:]
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(given.count + 2)
        var hasHost = false
        var hasUserAgent = false
        var hasAcceptEncoding = false
        var hasRange = false
        var hasContentLength = false
        var declaredLength: Int64?
        for (name, value) in given {
            if Header.namesMatch(name, "Connection") {
                continue
            } else if Header.namesMatch(name, "Proxy-Authorization") {
                if dropsProxyAuthorization { continue }
            } else if Header.namesMatch(name, "Content-Length") {
                if body != nil { continue }
                hasContentLength = true
                if streamsBody {
                    guard let length = Int64(value), length >= 0 else { continue }
                    declaredLength = length
                }
            } else if Header.namesMatch(name, "Host") {
                hasHost = true
            } else if Header.namesMatch(name, "User-Agent") {
                hasUserAgent = true
            } else if Header.namesMatch(name, "Accept-Encoding") {
                hasAcceptEncoding = true
            } else if Header.namesMatch(name, "Range") {
                hasRange = true
            }
            fields.append((name, value))
        }
        if let acceptEncoding, !hasAcceptEncoding, !hasRange {
            fields.append(("Accept-Encoding", acceptEncoding))
            offersEncodings = true
        }
        if let proxyAuthorization {
            fields.append(("Proxy-Authorization", proxyAuthorization))
        }
        // A method that gives content a meaning is sent a length even for none, as RFC 9110 (section 8.6) asks: a
        // server may otherwise refuse a POST without one (411 Length Required).
        let meansContent: Bool
        switch method {
        case "GET", "HEAD", "DELETE", "OPTIONS", "TRACE", "CONNECT": meansContent = false
        default: meansContent = true
        }
        if let body {
            framing = .length(Int64(body.count))
            if !body.isEmpty || meansContent {
                fields.append(("Content-Length", String(body.count)))
            }
        } else if streamsBody {
            if let declaredLength {
                framing = .length(declaredLength)
            } else {
                framing = .chunked
                fields.append(("Transfer-Encoding", "chunked"))
            }
        } else {
            framing = .length(0)
            if meansContent && !hasContentLength {
                fields.append(("Content-Length", "0"))
            }
        }
        fields.sort { $0.name < $1.name }
        self.fields = fields
        let path = Self.requestTarget(of: request.url)
        self.path = path
        let hostField = target.hostField
        authority = hasHost ? fields.first { Header.namesMatch($0.name, "Host") }?.value ?? hostField : hostField
        addsUserAgent = !hasUserAgent
        // Written straight into one buffer: joining strings made a new one for every piece.
        var head: [UInt8] = []
        head.reserveCapacity(256)
        func append(_ text: String) {
            head.append(contentsOf: text.utf8)
        }
        append(method)
        append(" ")
        // An HTTP proxy is sent the absolute form, which names the origin; everything else the origin form.
        if target.sendsAbsoluteForm {
            append("http://")
            append(hostField)
        }
        append(path)
        append(" HTTP/1.1\r\n")
        if !hasHost {
            append("Host: ")
            append(hostField)
            append("\r\n")
        }
        if !hasUserAgent {
            append("User-Agent: ")
            append(Self.defaultUserAgent)
            append("\r\n")
        }
        for (name, value) in fields {
            append(name)
            append(": ")
            append(value)
            append("\r\n")
        }
        append("\r\n")
        bytes = Data(head)
    }

    /// The `User-Agent` of a request that sets none.
    package static let defaultUserAgent = "Sluice"

    /// The request as HTTP/2 sends it (RFC 9113 section 8.3): the pseudo-fields first, then the fields, names in
    /// lowercase, without those that name a connection (`Connection`, `Keep-Alive`, `Proxy-Connection`,
    /// `Transfer-Encoding`, `Upgrade`, and `TE` but for `trailers`), the `Host` in `:authority`.
    ///
    /// - Parameter scheme: `https` or `http`.
    /// - Returns: The field list, in order.
    package func http2Fields(scheme: String) -> [(name: String, value: String)] {
        var list: [(name: String, value: String)] = [
            (":method", method), (":scheme", scheme), (":authority", authority), (":path", path),
        ]
        list.reserveCapacity(fields.count + 5)
        if addsUserAgent {
            list.append(("user-agent", Self.defaultUserAgent))
        }
        for field in fields {
            let name = field.name.lowercased()
            switch name {
            case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
                continue
            case "te" where field.value.trimmingCharacters(in: .whitespaces).lowercased() != "trailers":
                continue
            default:
                list.append((name, field.value))
            }
        }
        return list
    }

    /// The path and query as the request line carries them, percent-encoded as in the URL; `/` for an empty path.
    static func requestTarget(of url: URL?) -> String {
        // Read from the URL itself: parsing it again into `URLComponents` cost more than the rest of the head.
        guard let url = url?.absoluteURL else { return "/" }
        let path = url.path(percentEncoded: true)
        var target = path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) {
            target += "?" + query
        }
        return target
    }
}
