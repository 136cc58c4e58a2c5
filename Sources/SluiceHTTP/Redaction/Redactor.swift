/// A ``Redaction`` applied to one exchange: what it hides by name, and the exchange's credentials by value.
///
/// The one redaction behind logs, fixtures, cURL commands and error messages. It collects the credentials once, when
/// it is made, from the request, the response and the credentials performers noted; then every text it shows goes
/// through the by-name rules and one pass that replaces every known credential.
///
/// Use it to show what a request carried wherever it leaves the process, such as a log record's text:
///
/// ```swift
/// let redactor = Redactor(.default, request: request)
/// print(redactor.text(error.localizedDescription))
/// ```
public struct Redactor: Sendable {
    /// The rules.
    public let redaction: Redaction
    private let secrets: SecretMatcher

    /// What stands for a hidden value in a URL or a form body.
    private static let encodedPlaceholder = "%3Credacted%3E"

    /// The headers whose values are credentials whatever the redaction's names.
    private static let credentialHeaders: Set<Header> = [.authorization, .proxyAuthorization, .cookie, .setCookie]

    /// Collects the credentials of an exchange.
    ///
    /// - Parameters:
    ///   - redaction: The rules.
    ///   - request: The request, as sent or as built.
    ///   - response: The response, if one arrived.
    ///   - credentials: The credentials performers noted in the request's context.
    ///   - readingBodies: Whether to look for credentials under hidden names in the bodies too; a log that shows no
    ///     body skips the parse.
    ///   - bodyWindow: How many bytes at the start of each body are read for those credentials; all by default. What
    ///     shows an excerpt of a body (an error, a log) reads only a window around it, so that it takes memory
    ///     bounded by the excerpt rather than by the body.
    public init(
        _ redaction: Redaction,
        request: URLRequest? = nil,
        response: HTTPResponse? = nil,
        credentials: [String] = [],
        readingBodies: Bool = true,
        bodyWindow: Int = .max
    ) {
        self.redaction = redaction
        guard redaction.hidesCredentialValues else {
            secrets = SecretMatcher([])
            return
        }
        let names = NameRedaction(redaction: redaction)
        var found: [String] = []
        for credential in credentials {
            Redactor.collect(authorization: credential, into: &found)
        }
        if let request {
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                Redactor.collect(
                    header: Header(name),
                    value: value,
                    hidden: redaction.hides(header: Header(name)),
                    into: &found
                )
            }
            if let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                found += [components.password, components.percentEncodedPassword].compactMap { $0 }
                for item in components.queryItems ?? [] where redaction.hides(name: item.name) {
                    found += [item.value].compactMap { $0 }
                }
            }
            if readingBodies, let body = request.httpBody {
                _ = names.redacted(Redactor.window(body, bodyWindow), found: &found)
            }
        }
        if let response {
            for field in response.headers {
                Redactor.collect(
                    header: field.name,
                    value: field.value,
                    hidden: redaction.hides(header: field.name),
                    into: &found
                )
            }
            if readingBodies {
                _ = names.redacted(Redactor.window(response.body, bodyWindow), found: &found)
            }
        }
        secrets = SecretMatcher(found)
    }

    /// A header's value, or the placeholder when the header is hidden; any credential in it replaced.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The header's name.
    /// - Returns: The value as it may be shown.
    public func header(_ value: String, of name: Header) -> String {
        redaction.hides(header: name)
            ? Redaction.placeholder : secrets.replacing(in: value, with: Redaction.placeholder)
    }

    /// A request's URL as OpenTelemetry's `url.full` may show it: without user name or password, with the values the
    /// redaction hides replaced.
    ///
    /// A URL with no user, password or query item the redaction hides, of a request with no credential noted and no
    /// field the redaction hides or that carries credentials, holds nothing to hide and is returned as it is, without
    /// the cost of a redactor.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - redaction: The rules.
    ///   - credentials: The credentials performers noted for the request.
    /// - Returns: The URL's text.
    package static func fullURL(of request: URLRequest, redaction: Redaction, credentials: [String]) -> String {
        guard let url = request.url else { return "" }
        let plain =
            credentials.isEmpty && url.user == nil && url.password == nil
            && !(request.allHTTPHeaderFields ?? [:]).keys.contains { name in
                let header = Header(name)
                return redaction.hides(header: header) || credentialHeaders.contains(header)
            }
            && !hidesQueryItem(of: url, redaction)
        guard !plain else { return url.absoluteString }
        return Redactor(redaction, request: request, credentials: credentials, readingBodies: false)
            .url(url, droppingUserInfo: true)
    }

    /// Whether the redaction hides the value of an item of the URL's query, read from the query's text rather than
    /// from a parse of the whole URL.
    private static func hidesQueryItem(of url: URL, _ redaction: Redaction) -> Bool {
        guard let query = url.query(percentEncoded: true) else { return false }
        // By bytes: `&` and `=` are ASCII, and a split by characters would take a grapheme break at every one.
        return query.utf8.split(separator: UInt8(ascii: "&")).contains { item in
            let name = Substring(item.prefix { $0 != UInt8(ascii: "=") })
            guard name.utf8.contains(UInt8(ascii: "%")) else { return redaction.hides(name: name) }
            return redaction.hides(name: String(name).removingPercentEncoding ?? String(name))
        }
    }

    /// A URL's text, with its password, the values of hidden query items and any credential replaced.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - droppingUserInfo: Whether to leave the user name and password out, as OpenTelemetry's `url.full` does,
    ///     rather than show the name and hide the password.
    /// - Returns: The URL's text as it may be shown.
    public func url(_ url: URL?, droppingUserInfo: Bool = false) -> String {
        guard let url else { return "(no URL)" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return secrets.replacing(in: url.absoluteString, with: Redactor.encodedPlaceholder)
        }
        if droppingUserInfo {
            components.percentEncodedUser = nil
            components.percentEncodedPassword = nil
        }
        if redaction.hidesCredentialValues, components.percentEncodedPassword != nil {
            components.percentEncodedPassword = Redactor.encodedPlaceholder
        }
        if let items = components.percentEncodedQueryItems, items.contains(where: { hides(field: $0.name) }) {
            components.percentEncodedQueryItems = items.map { item in
                hides(field: item.name) ? URLQueryItem(name: item.name, value: Redactor.encodedPlaceholder) : item
            }
        }
        return secrets.replacing(in: components.string ?? url.absoluteString, with: Redactor.encodedPlaceholder)
    }

    /// A copy of a request as a value a user may log: every header value, the URL and the body as this redactor
    /// shows them, so that no credential it knows of is left in it.
    ///
    /// A body given as a stream is left as it is, unread; a request with nothing to hide comes back unchanged.
    ///
    /// - Parameter request: The request.
    /// - Returns: The request as it may be shown.
    public func request(_ request: URLRequest) -> URLRequest {
        var copy = request
        if let url = request.url {
            let shown = self.url(url)
            if shown != url.absoluteString {
                copy.url = URL(string: shown)
            }
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let shown = header(value, of: Header(name))
            if shown != value {
                copy.setValue(shown, forHTTPHeaderField: name)
            }
        }
        if let body = request.httpBody {
            let shown = recorded(body)
            if shown != body {
                copy.httpBody = shown
            }
        }
        return copy
    }

    /// Any text, such as an error message, with the credentials replaced.
    ///
    /// - Parameter text: The text.
    /// - Returns: The text as it may be shown.
    public func text(_ text: String) -> String {
        secrets.replacing(in: text, with: Redaction.placeholder)
    }

    /// A body as text, cut to a length: as it is when nothing in it is hidden, otherwise as `redacted(_:)` shows
    /// it; a body that is not UTF-8 as a count of bytes.
    ///
    /// For a finite `limit`, only a window at the start of the body is read, `excerptWindow(limit:)` bytes long:
    /// a JSON document cut there is no longer one, and its hidden fields are found as in any text, `"name": value`.
    ///
    /// - Parameters:
    ///   - body: The body's bytes.
    ///   - limit: The most characters shown.
    /// - Returns: The body as it may be shown.
    public func body(_ body: Data, limit: Int) -> String {
        guard !body.isEmpty else { return "" }
        let window = Redactor.window(body, Redactor.excerptWindow(limit: limit))
        guard let redacted = redacted(window) else {
            return "(\(body.count) bytes of binary data)"
        }
        return redacted.changed
            ? String(excerptOf: redacted.text.utf8, limit: limit) : String(excerptOf: window, limit: limit)
    }

    /// How much of a body is read for an excerpt of `limit` characters: 32 bytes a character, at least 16 KiB, so
    /// that the compact form of a JSON document with its hidden values replaced still fills the excerpt; all of it
    /// for an unlimited excerpt.
    package static func excerptWindow(limit: Int) -> Int {
        limit >= .max / 32 ? .max : max(limit * 32, 16 << 10)
    }

    /// The first `size` bytes of a body, or fewer so as not to end inside a UTF-8 sequence; the body itself when it
    /// is no longer.
    static func window(_ body: Data, _ size: Int) -> Data {
        guard body.count > size else { return body }
        var end = body.startIndex + size
        // Back over continuation bytes, then over the lead byte whose sequence they began.
        var continuations = 0
        while continuations < 3, end > body.startIndex, body[end - 1] & 0xC0 == 0x80 {
            end -= 1
            continuations += 1
        }
        if end > body.startIndex, body[end - 1] >= 0xC0 {
            end -= 1
        }
        return Data(body[body.startIndex..<end])
    }

    /// A body as text with what this redaction hides replaced, and whether anything was; `nil` when the body is
    /// not UTF-8 text.
    ///
    /// A JSON body comes back compact, whether or not anything was hidden.
    package func redacted(_ body: Data) -> (text: String, changed: Bool)? {
        var ignored: [String] = []
        guard let named = NameRedaction(redaction: redaction).redacted(body, found: &ignored) else { return nil }
        let placeholder = named.isForm ? Redactor.encodedPlaceholder : Redaction.placeholder
        if let replaced = secrets.replacing(named.text.utf8, with: placeholder) {
            return (String(decoding: replaced, as: UTF8.self), true)
        }
        return (named.text, named.changed)
    }

    /// A body's bytes as a fixture keeps them: the same bytes, unless something in them is hidden; then a text body
    /// as `redacted(_:)` shows it, and other bytes with each credential replaced.
    package func recorded(_ body: Data) -> Data {
        if let redacted = redacted(body) {
            return redacted.changed ? Data(redacted.text.utf8) : body
        }
        return secrets.replacing(body, with: Redaction.placeholder).map { Data($0) } ?? body
    }

    /// Whether a field, percent-encoded as in a query, is hidden.
    private func hides(field: String) -> Bool {
        redaction.hides(name: field.removingPercentEncoding ?? field)
    }

    /// Collects the credentials in a header's value: all of it for a hidden header, and for the credential headers
    /// the parts too.
    private static func collect(header: Header, value: String, hidden: Bool, into found: inout [String]) {
        switch header {
        case .authorization, .proxyAuthorization:
            collect(authorization: value, into: &found)
        case .cookie, .setCookie:
            found.append(value)
            collect(cookies: value, into: &found)
        default:
            if hidden {
                found.append(value)
            }
        }
    }

    /// Collects an authorization value, the credential after its scheme, and a `Basic` credential's user and
    /// password.
    private static func collect(authorization value: String, into found: inout [String]) {
        found.append(value)
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return }
        let credential = parts[1].trimmingCharacters(in: .whitespaces)
        found.append(credential)
        if parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: credential),
            let pair = String(data: decoded, encoding: .utf8)
        {
            found.append(pair)
            found += pair.split(separator: ":", maxSplits: 1).map(String.init)
        }
    }

    /// The attributes of a `Set-Cookie` value, which are not credentials.
    private static let cookieAttributes: Set<String> = [
        "path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "partitioned", "priority",
    ]

    /// Collects the values of a `Cookie` or `Set-Cookie` header (`a=1; b=2`, `a=1; Path=/`, several joined by
    /// commas).
    private static func collect(cookies value: String, into found: inout [String]) {
        for pair in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
            guard !cookieAttributes.contains(name.lowercased()) else { continue }
            found.append(String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
        }
    }
}
