// A request rendered as a `curl` command line, through the same redaction as logs and fixtures.
extension URLRequest {
    /// The request as a `curl` command line, with what a redaction hides replaced: the request's credentials
    /// wherever they appear, and the values under hidden names.
    ///
    /// ```swift
    /// print(request.curlCommand())
    /// // curl -X POST 'https://api.example.com/login' -H 'Authorization: <redacted>' --data-binary '{"user":"ada"}'
    /// ```
    ///
    /// - Parameter redaction: What to hide; ``Redaction/default`` by default.
    /// - Returns: A command that sends the same request, safe to paste into a terminal or a bug report.
    public func curlCommand(redacting redaction: Redaction = .default) -> String {
        func quoted(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }
        let redactor = Redactor(redaction, request: self)
        var parts = ["curl"]
        let method = httpMethod ?? "GET"
        if method != "GET" {
            parts.append("-X \(method)")
        }
        parts.append(quoted(redactor.url(url)))
        for (name, value) in (allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            parts.append("-H " + quoted("\(name): \(redactor.header(value, of: Header(name)))"))
        }
        if let body = httpBody, !body.isEmpty {
            parts.append("--data-binary " + quoted(redactor.body(body, limit: .max)))
        } else if httpBodyStream != nil {
            parts.append("--data-binary @-  # the body is a stream")
        }
        return parts.joined(separator: " ")
    }
}
