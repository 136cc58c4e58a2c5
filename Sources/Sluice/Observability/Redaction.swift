/// What logs and cURL commands hide: header values, JSON values by key, and query items by name.
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-API-Key"], jsonKeys: ["password", "token"], queryItems: ["sig"])
/// ```
///
/// The default hides `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`, and always the password
/// of a URL (`https://user:<redacted>@host/`). A hidden value is shown as `<redacted>`; names stay visible, so a log
/// still says what was sent.
///
/// Bodies are redacted by what they hold: a JSON body by its object keys, a form body
/// (`application/x-www-form-urlencoded`) by its field names, both against ``jsonKeys`` and ``queryItems``. Any
/// other text is shown only when it mentions none of those names; otherwise only its size is, since there is no
/// telling where its secrets are.
public struct Redaction: Sendable, Hashable {
    /// The headers whose values are hidden.
    public var headers: Set<Header>
    /// The JSON object keys whose values are hidden, at any depth of a body; compared case-insensitively.
    public var jsonKeys: Set<String>
    /// The query items whose values are hidden; compared case-insensitively.
    public var queryItems: Set<String>

    /// What stands for a hidden value.
    public static let placeholder = "<redacted>"

    /// Creates a redaction.
    ///
    /// - Parameters:
    ///   - headers: The headers whose values are hidden.
    ///   - jsonKeys: The JSON keys whose values are hidden.
    ///   - queryItems: The query items whose values are hidden.
    public init(headers: Set<Header> = [], jsonKeys: Set<String> = [], queryItems: Set<String> = []) {
        self.headers = headers
        self.jsonKeys = Set(jsonKeys.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
    }

    /// Hides `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
    public static let `default` = Redaction(headers: [.authorization, .proxyAuthorization, .cookie, .setCookie])

    /// This redaction with more names hidden.
    ///
    /// - Parameters:
    ///   - headers: More headers.
    ///   - jsonKeys: More JSON keys.
    ///   - queryItems: More query items.
    /// - Returns: The wider redaction.
    public func adding(headers: Set<Header> = [], jsonKeys: Set<String> = [], queryItems: Set<String> = []) -> Redaction
    {
        Redaction(
            headers: self.headers.union(headers),
            jsonKeys: self.jsonKeys.union(jsonKeys),
            queryItems: self.queryItems.union(queryItems)
        )
    }

    /// A header's value, or the placeholder when the header is hidden.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The header's name.
    /// - Returns: What may be shown.
    public func value(_ value: String, of name: Header) -> String {
        headers.contains(name) ? Redaction.placeholder : value
    }

    /// A URL with the values of hidden query items replaced.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The URL's text, safe to show.
    public func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = "%3Credacted%3E"
        }
        if !queryItems.isEmpty, let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                hides(field: item.name, among: queryItems)
                    ? URLQueryItem(name: item.name, value: "%3Credacted%3E") : item
            }
        }
        return components.string ?? url.absoluteString
    }

    /// A body as text, with the values of hidden keys and fields replaced, cut to a length.
    ///
    /// A JSON body is shown compact with its hidden values replaced; a form body with the values of its hidden
    /// fields replaced; any other UTF-8 text as it is when it mentions no hidden key, and otherwise, like a body
    /// that is not text, as a count of bytes.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - limit: The most bytes of text shown, cut before a character rather than through it.
    /// - Returns: What may be shown.
    public func body(_ body: Data, limit: Int) -> String {
        guard !body.isEmpty else { return "" }
        guard let text = redacted(body)?.text else {
            return "(\(body.count) bytes of binary data)"
        }
        return String(excerptOf: text.utf8, limit: limit)
    }

    /// A body as text with what this redaction hides replaced, and whether anything was; `nil` when the body is
    /// not UTF-8 text.
    ///
    /// ``body(_:limit:)`` shows the text; a recording keeps the original bytes unless something was hidden.
    package func redacted(_ body: Data) -> (text: String, changed: Bool)? {
        let hidden = jsonKeys.union(queryItems)
        if let json = try? JSON(parsing: body) {
            var writer = JSONWriter()
            var changed = false
            write(json, into: &writer, changed: &changed)
            return (writer.text, changed)
        }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        if let form = redactedForm(text, hiding: hidden) {
            return form
        }
        let lowered = text.lowercased()
        if hidden.contains(where: { lowered.contains($0) }) {
            return ("(\(body.count) bytes, not shown: not JSON or form data, and it mentions a redacted name)", true)
        }
        return (text, false)
    }

    /// Whether a field, percent-encoded as in a query or a form body, is among the hidden names.
    private func hides(field: some StringProtocol, among names: Set<String>) -> Bool {
        let decoded = field.replacingOccurrences(of: "+", with: " ")
        return names.contains((decoded.removingPercentEncoding ?? decoded).lowercased())
    }

    /// A form body (`name=value&…`) with the values of hidden fields replaced, and whether any was; `nil` when the
    /// text is not one.
    private func redactedForm(_ text: String, hiding hidden: Set<String>) -> (text: String, changed: Bool)? {
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace }) else { return nil }
        var fields: [String] = []
        var changed = false
        for field in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else { return nil }
            let name = field[..<equals]
            if hides(field: name, among: hidden) {
                fields.append(name + "=%3Credacted%3E")
                changed = true
            } else {
                fields.append(String(field))
            }
        }
        return (fields.joined(separator: "&"), changed)
    }

    private func write(_ json: JSON, into writer: inout JSONWriter, changed: inout Bool) {
        switch json.value {
        case .object(let members):
            writer.write(raw: "{")
            for (index, member) in members.enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                writer.write(string: member.key)
                writer.write(raw: ":")
                if jsonKeys.contains(member.key.lowercased()) {
                    writer.write(string: Redaction.placeholder)
                    changed = true
                } else {
                    write(member.value, into: &writer, changed: &changed)
                }
            }
            writer.write(raw: "}")
        case .array(let elements):
            writer.write(raw: "[")
            for (index, element) in elements.enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                write(element, into: &writer, changed: &changed)
            }
            writer.write(raw: "]")
        default:
            writer.write(json)
        }
    }
}
