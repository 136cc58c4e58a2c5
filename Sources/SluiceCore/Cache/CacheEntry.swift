/// A stored response's head and what it was stored for.
///
/// It holds the cache key, the request fields its `Vary` names, and when it was requested and received (RFC 9111,
/// 4.2.3). Its body is the store's.
struct CacheEntry: Sendable, Hashable {
    /// The primary cache key (4): the target URI without its fragment.
    var key: String
    /// The request fields the response varies on (4.1) with their normalised values, sorted by lower-cased name.
    ///
    /// The request's `Authorization` is always among them, as a digest, so that a response stored for one credential is
    /// never served for another and the credential itself is never stored.
    var variant: [Field]
    /// The response status.
    var status: HTTPStatus
    /// The stored response's header fields, without those that are never stored (3.1).
    var headers: HTTPHeaders
    /// The URL the response came from, after any redirects.
    var url: URL?
    /// When the request that produced the response was sent: `request_time`.
    var requestTime: Date
    /// When the response was received: `response_time`.
    var responseTime: Date
    /// The body's length in bytes.
    var bodySize: Int
    /// The body itself, when the store hands it out with the head (the memory store does, so that a head is never
    /// served with the body of a response that replaced it); `nil` from the disk store.
    var body: Data?

    /// A request field the response varies on: its name, lower-cased, and its value, normalised; `nil` when the
    /// request had none.
    struct Field: Sendable, Hashable {
        var name: String
        var value: String?
    }

    /// The identity of this variant within its key, the same in every process: stores name its file by it.
    var variantID: String {
        variant.map { "\($0.name)\u{0}\($0.value ?? "\u{1}")" }.joined(separator: "\u{0}")
    }

    /// The primary cache key of a URL: the URL without its fragment; `nil` for a request without one.
    static func key(for url: URL?) -> String? {
        guard let url else { return nil }
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
    }

    /// The fields a response's `Vary` names, with the values `request` has for them, plus its `Authorization`; `nil`
    /// when `Vary` has the member `*`, which no later request matches (4.1).
    static func variant(of request: URLRequest, varyingOn responseHeaders: HTTPHeaders) -> [Field]? {
        var names: Set<String> = ["authorization"]
        for value in responseHeaders.values(for: .vary) {
            for member in FieldList.elements(of: value) {
                let name = Header.asciiLowercased(String(member))
                if name == "*" { return nil }
                if names.count < 32 { names.insert(name) }
            }
        }
        return names.sorted().map { Field(name: $0, value: requestValue(request, $0)) }
    }

    /// The first field this response varies on whose value in `request` differs from its value in `other`, by the
    /// response's `Vary` (and the `Authorization` every variant records); `nil` when they present the same.
    static func firstDifference(
        between request: URLRequest,
        and other: URLRequest,
        varyingOn responseHeaders: HTTPHeaders
    ) -> String? {
        guard let fields = variant(of: request, varyingOn: responseHeaders) else { return nil }
        return fields.first { requestValue(other, $0.name) != $0.value }?.name
    }

    /// Whether `request` presents the same values for the fields this response varies on (4.1).
    func matches(_ request: URLRequest) -> Bool {
        variant.allSatisfy { CacheEntry.requestValue(request, $0.name) == $0.value }
    }

    /// A request field's value as a variant records it: spaces and tabs around list members removed (commas inside
    /// quoted strings, as in `Digest realm="a, b"`, separate nothing), a `Cookie`'s pairs sorted (a store hands its
    /// cookies out in no fixed order), and a credential replaced by its SHA-256 digest.
    private static func requestValue(_ request: URLRequest, _ name: String) -> String? {
        guard let value = request.value(forHTTPHeaderField: name) else { return nil }
        let normalised =
            name == "cookie"
            ? value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .sorted().joined(separator: "; ")
            : FieldList.elements(of: value, omittingEmpty: false, quoting: .quotedStrings).joined(separator: ",")
        guard name == "authorization" || name == "cookie" || name == "proxy-authorization" else { return normalised }
        return "sha256:" + SHA256.hash(normalised.utf8).hexadecimal
    }
}
