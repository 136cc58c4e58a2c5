extension URL {
    /// This URL with a path appended to its own path and a query added after any it has, or `nil` when the result
    /// is not a URL.
    ///
    /// The path is appended, not resolved: a leading `/` does not replace the base URL's path, so
    /// `https://api.example.com/v2` with `/users` is `https://api.example.com/v2/users`. The path and query must
    /// already be percent-encoded.
    package func appending(encodedPath path: String, encodedQuery query: String) -> URL? {
        var text = absoluteString
        var baseQuery = ""
        if let mark = text.firstIndex(of: "?") {
            baseQuery = String(text[text.index(after: mark)...])
            text = String(text[..<mark])
        }
        let trimmedPath = path.drop { $0 == "/" }
        if !trimmedPath.isEmpty {
            text = (text.hasSuffix("/") ? text : text + "/") + trimmedPath
        }
        let fullQuery = [baseQuery, query].filter { !$0.isEmpty }.joined(separator: "&")
        if !fullQuery.isEmpty {
            text += "?" + fullQuery
        }
        return URL(string: text)
    }
}
