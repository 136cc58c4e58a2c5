import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies from an `HTTPCookieStorage`, as both performers send and store them: Sluice's own transport on every
/// request and redirect, URLSession's delegate on a redirect it follows.
extension URLRequest {
    /// The cookies a storage holds for the request's host, as the storage matches domains, whatever their path;
    /// none when the request handles no cookies.
    ///
    /// FoundationNetworking sends all of them, path or not, so their values are what a log must hide.
    ///
    /// - Parameter storage: The storage; `nil` for none.
    /// - Returns: The cookies.
    func storedCookies(in storage: HTTPCookieStorage?) -> [HTTPCookie] {
        guard httpShouldHandleCookies, let url, let storage else { return [] }
        return storage.cookies(for: url) ?? []
    }

    /// The request with the cookies a storage holds for it added to its `Cookie` field, after those it names itself:
    /// its host's (``storedCookies(in:)``) whose path matches the URL's (RFC 6265, 5.1.4), and secure ones over
    /// `https` only; a cookie it names already is left as it is.
    ///
    /// - Parameter storage: The storage; `nil` for none.
    /// - Returns: The request to send.
    func addingStoredCookies(from storage: HTTPCookieStorage?) -> URLRequest {
        adding(storedCookies(in: storage))
    }

    /// The request with those of its host's stored cookies (``storedCookies(in:)``, read once by the caller) that
    /// match its URL added to its `Cookie` field, as ``addingStoredCookies(from:)`` adds them.
    ///
    /// - Parameter hostCookies: The cookies the storage holds for the request's host.
    /// - Returns: The request to send.
    func adding(_ hostCookies: [HTTPCookie]) -> URLRequest {
        guard let url else { return self }
        let stored = hostCookies.filter { Self.matches($0, url) }
        guard !stored.isEmpty else { return self }
        let present = value(forHTTPHeaderField: "Cookie")
        let named = Set(
            (present ?? "").split(separator: ";").compactMap { pair in
                pair.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
            }
        )
        let added = stored.filter { !named.contains($0.name) }.map { "\($0.name)=\($0.value)" }
        guard !added.isEmpty else { return self }
        var request = self
        request.setValue(((present.map { [$0] } ?? []) + added).joined(separator: "; "), forHTTPHeaderField: "Cookie")
        return request
    }

    /// The request with every cookie a storage holds for its host, whatever its path, scheme or
    /// `httpShouldHandleCookies`, after those of its own `Cookie` field: a superset of what URLSession sends, for a
    /// cache to tell cookie states apart.
    ///
    /// - Parameter storage: The storage; `nil` for none.
    /// - Returns: The request with the cookies.
    func addingEveryCookie(ofItsHostIn storage: HTTPCookieStorage?) -> URLRequest {
        guard let storage, let url, let cookies = storage.cookies(for: url), !cookies.isEmpty else { return self }
        let stored = cookies.map { "\($0.name)=\($0.value)" }
        var request = self
        let present = value(forHTTPHeaderField: "Cookie").map { [$0] } ?? []
        request.setValue((present + stored).joined(separator: "; "), forHTTPHeaderField: "Cookie")
        return request
    }

    /// Whether a cookie's path matches a URL's (RFC 6265, 5.1.4), and a secure cookie goes over HTTPS only.
    static func matches(_ cookie: HTTPCookie, _ url: URL) -> Bool {
        let path = url.path.isEmpty ? "/" : url.path
        let scope = cookie.path.isEmpty ? "/" : cookie.path
        let pathMatches =
            path == scope
            || (path.hasPrefix(scope) && (scope.hasSuffix("/") || path.dropFirst(scope.count).hasPrefix("/")))
        return pathMatches && (url.scheme?.lowercased() == "https" || !cookie.isSecure)
    }
}

extension HTTPCookieStorage {
    /// Stores the cookies a response sets, each `Set-Cookie` field parsed alone (a date in one holds a comma), for
    /// the URL that answered; a cookie that has expired already, by `Expires` or by a `Max-Age` of zero or less,
    /// removes the stored cookie of its name, domain and path instead (RFC 6265, 5.3), which is how a server deletes
    /// one.
    ///
    /// - Parameters:
    ///   - values: The values of the response's `Set-Cookie` fields.
    ///   - url: The URL that answered.
    ///   - mainDocumentURL: The URL of the document the request was for, which the storage's policy may consult.
    func storeCookies(_ values: [String], from url: URL, mainDocumentURL: URL?) {
        let now = Date()
        var kept: [HTTPCookie] = []
        for value in values {
            let deletes = Self.hasExpiredMaxAge(value)
            for cookie in HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url) {
                if deletes || (cookie.expiresDate.map { $0 <= now } ?? false) {
                    for stored in cookies ?? []
                    where stored.name == cookie.name && stored.domain == cookie.domain && stored.path == cookie.path {
                        deleteCookie(stored)
                    }
                } else {
                    kept.append(cookie)
                }
            }
        }
        guard !kept.isEmpty else { return }
        setCookies(kept, for: url, mainDocumentURL: mainDocumentURL ?? url)
    }

    /// Whether a `Set-Cookie` value has a `Max-Age` of zero or less: the cookie expires at once.
    static func hasExpiredMaxAge(_ value: String) -> Bool {
        value.split(separator: ";").dropFirst().contains { attribute in
            let parts = attribute.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, Header.namesMatch(parts[0], "Max-Age") else { return false }
            return Int(parts[1]).map { $0 <= 0 } ?? false
        }
    }
}
