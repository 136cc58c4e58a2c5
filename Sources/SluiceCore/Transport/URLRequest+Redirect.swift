import Foundation

extension URLRequest {
    /// The request without its credentials (`Authorization`, `Proxy-Authorization`, `Cookie`) when its URL has
    /// left the origin (scheme, host and port) of the URL they were sent to: the rule both transports follow
    /// redirects by.
    ///
    /// - Parameter previous: The URL the credentials were sent to.
    /// - Returns: The request, its credentials dropped when it goes elsewhere.
    func droppingCredentials(leaving previous: URL?) -> URLRequest {
        guard !URL.sameOrigin(previous, url) else { return self }
        var request = self
        for name in ["Authorization", "Proxy-Authorization", "Cookie"] {
            request.setValue(nil, forHTTPHeaderField: name)
        }
        return request
    }
}

extension URL {
    /// Whether two URLs share scheme, host and port (the scheme's default when absent).
    static func sameOrigin(_ first: URL?, _ second: URL?) -> Bool {
        guard let first, let second else { return false }
        func origin(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : 80)
            return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
        }
        return origin(first) == origin(second)
    }
}
