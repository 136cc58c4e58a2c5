/// The rules of RFC 9111 that decide what is stored, what a stored response may be used for, and how a `304` updates
/// one: pure functions over heads and a `now`, so that each is tested as a table.
enum CacheRules {
    /// The header fields a cache never stores (3.1), lower-cased: those of the connection, those of the proxy a
    /// request went through, and the cache's own `Cache-Status`; fields a `Connection` field names are added to them.
    static let unstoredFields: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade", "proxy-authenticate",
        "proxy-authentication-info", "proxy-authorization", "cache-status",
    ]

    /// The statuses whose caching requirements this cache understands, for `must-understand` (5.2.2.3).
    static let understoodStatuses: Set<Int> = CacheEntry.heuristicallyCacheable.union([302, 303, 307])
        .subtracting([206])

    /// Why a response to `request` may not be stored, or `nil` when it may (3).
    ///
    /// - Parameters:
    ///   - request: The request, a `GET`.
    ///   - status: The response status.
    ///   - headers: The response header fields.
    /// - Returns: The reason, as the outcome's detail shows it.
    static func reasonNotStorable(request: URLRequest, status: HTTPStatus, headers: HTTPHeaders) -> String? {
        let response = CacheControl(headers)
        if status.code < 200 {
            return "status \(status.code) is not final"
        }
        if status.code == 206 {
            return "partial responses (206) are not stored"
        }
        if status.code == 304 {
            return "a 304 with no stored response to update"
        }
        if response.mustUnderstand {
            guard understoodStatuses.contains(status.code) else {
                return "must-understand with status \(status.code), whose caching rules this cache does not know"
            }
        } else if response.noStore {
            return "the response says no-store"
        }
        if CacheControl(request).noStore {
            return "the request says no-store"
        }
        if CacheEntry.variant(of: request, varyingOn: headers) == nil {
            return "Vary: * matches no later request"
        }
        let explicit =
            response.maxAge != nil || headers[.expires] != nil || response.isPublic || response.isPrivate
            || response.invalid.contains("max-age")
        guard explicit || CacheEntry.heuristicallyCacheable.contains(status.code) else {
            return "status \(status.code) is not cacheable without explicit freshness"
        }
        return nil
    }

    /// The header fields to store of a response: all but those 3.1 excludes.
    static func storedFields(of headers: HTTPHeaders) -> HTTPHeaders {
        let excluded = unstored(headers)
        return HTTPHeaders(headers.fields.filter { !excluded.contains($0.name.name.lowercased()) })
    }

    /// The names 3.1 excludes from storage for these headers, with those their `Connection` fields list.
    private static func unstored(_ headers: HTTPHeaders) -> Set<String> {
        var excluded = unstoredFields
        for value in headers.values(for: .connection) {
            FieldList.forEachElement(of: value) { excluded.insert(Header.asciiLowercased(String($0))) }
        }
        return excluded
    }

    /// A stored response's header fields updated with those of a `304` or `HEAD` response (3.2): each field the
    /// new response has replaces every stored field of that name, except those never stored and `Content-Length`.
    static func updated(_ stored: HTTPHeaders, with new: HTTPHeaders) -> HTTPHeaders {
        var excluded = unstored(new)
        excluded.insert("content-length")
        var result = stored
        var replaced: Set<String> = []
        for field in new.fields {
            let name = field.name.name.lowercased()
            guard !excluded.contains(name) else { continue }
            if replaced.insert(name).inserted {
                result[field.name] = nil
            }
            result.add(field.value, for: field.name)
        }
        return result
    }

    /// The entity tags of an `If-None-Match` or `ETag` value, `*` included, in order.
    static func entityTags(_ value: String) -> [String] {
        FieldList.elements(of: value, quoting: .entityTags).map(String.init)
    }

    /// The weak comparison of two entity tags (RFC 9110, 8.8.3.2): equal opaque tags, whether weak or not.
    static func weaklyMatch(_ first: String, _ second: String) -> Bool {
        opaqueTag(first) == opaqueTag(second)
    }

    /// The strong comparison of two entity tags (RFC 9110, 8.8.3.2): neither weak, and equal.
    static func stronglyMatch(_ first: String, _ second: String) -> Bool {
        !first.hasPrefix("W/") && !second.hasPrefix("W/") && first == second
    }

    private static func opaqueTag(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }

    /// Whether a `304` (or a `HEAD` response) describes the stored response `entry` (4.3.4): by a strong entity tag
    /// when it has one, else by a weak one or `Last-Modified`; a response with no validator matches a stored one
    /// with none.
    static func validators(of new: HTTPHeaders, match entry: CacheEntry) -> Bool {
        if let tag = new[.eTag]?.trimmingCharacters(in: .whitespaces) {
            guard let stored = entry.headers[.eTag]?.trimmingCharacters(in: .whitespaces) else { return false }
            return tag.hasPrefix("W/") ? weaklyMatch(tag, stored) : stronglyMatch(tag, stored)
        }
        if let modified = new[.lastModified] {
            return entry.headers[.lastModified] == modified
        }
        return entry.headers[.eTag] == nil && entry.headers[.lastModified] == nil
    }

    /// Whether a request's own preconditions (`If-None-Match`, else `If-Modified-Since`) hold against a stored
    /// response, so that the cache answers `304` (4.3.2, RFC 9110 13.2.2); `nil` when the request has none.
    static func requestConditionsFail(_ request: URLRequest, for entry: CacheEntry) -> Bool? {
        if let noneMatch = request.value(forHTTPHeaderField: "If-None-Match") {
            let tags = entityTags(noneMatch)
            guard let stored = entry.headers[.eTag]?.trimmingCharacters(in: .whitespaces) else { return false }
            return tags.contains { $0 == "*" || weaklyMatch($0, stored) }
        }
        if let since = request.value(forHTTPHeaderField: "If-Modified-Since").flatMap(HTTPDate.parse) {
            let modified = entry.headers[.lastModified].flatMap(HTTPDate.parse) ?? entry.dateValue
            return modified <= since
        }
        return nil
    }

    /// Whether a request carries preconditions of its own, which the cache then evaluates or forwards.
    static func isConditional(_ request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: "If-None-Match") != nil
            || request.value(forHTTPHeaderField: "If-Modified-Since") != nil
    }

    /// The keys a successful unsafe request invalidates (4.4): its target URI and the `Location` and
    /// `Content-Location` of the response when they have the target's origin.
    static func invalidatedKeys(by request: URLRequest, response headers: HTTPHeaders) -> [String] {
        guard let target = request.url, let key = CacheEntry.key(for: target) else { return [] }
        var keys = [key]
        for value in [headers[.location], headers[.contentLocation]].compactMap({ $0 }) {
            guard let url = URL(string: value.trimmingCharacters(in: .whitespaces), relativeTo: target)?.absoluteURL,
                url.scheme?.lowercased() == target.scheme?.lowercased(),
                url.host?.lowercased() == target.host?.lowercased(), url.port == target.port,
                let other = CacheEntry.key(for: url)
            else { continue }
            keys.append(other)
        }
        return keys
    }
}
