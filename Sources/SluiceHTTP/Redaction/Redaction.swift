/// What logs, fixtures, cURL commands and error messages hide: credentials by value, and values by name.
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-Signature"], jsonKeys: ["pin"], queryItems: ["sig"])
/// ```
///
/// A redaction hides in two ways, and a hidden value is shown as `<redacted>` (`%3Credacted%3E` in a URL or a form
/// body); names stay visible, so a log still says what was sent.
///
/// - **By value.** Every credential of an exchange is collected from the request and the response: the values of
///   `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` (the whole value, the token after the scheme,
///   the user and password of `Basic`, each cookie's value), the values of the other hidden headers, a URL's
///   password, the values under hidden names in the query and in either body, and the credentials a performer noted
///   in the ``RequestContext`` (an ``AuthenticatingPerformer`` notes its tokens). Each is then hidden wherever it
///   appears afterwards, in either direction: in headers, URLs, JSON at any depth, form bodies and plain text, also
///   JSON-escaped, percent-encoded and in Base64. Values shorter than ``minimumSecretLength`` bytes are not matched by
///   value, since they would turn ordinary text into noise; they are still hidden by name.
/// - **By name.** The value of a header in ``headers``, and wherever a name in ``jsonKeys`` or ``queryItems`` stands:
///   a header name, a JSON object key at any depth, a form field, a query item, a `name=value` or `name: value` in
///   plain text, and in JSON or form text nested inside a JSON string. Names are compared case-insensitively and
///   without `_`, `-` and `.`, so `access_token` also hides `accessToken`, `Access-Token` and `ACCESS.TOKEN`.
///
/// ``default`` hides the headers `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and `X-API-Key`, and
/// the names in ``defaultNames``; ``none`` hides nothing, for the rare fixture that must keep its credentials.
public struct Redaction: Sendable, Hashable {
    /// The headers whose values are hidden.
    public var headers: Set<Header>
    /// The names whose values are hidden wherever they stand (JSON keys at any depth, form fields, query items,
    /// header names, plain text); kept lowercased, without `_`, `-` and `.`.
    public var jsonKeys: Set<String> {
        didSet { jsonKeys = Redaction.normalized(jsonKeys) }
    }
    /// More names hidden like ``jsonKeys``, named for the query items they usually are; kept in the same form.
    public var queryItems: Set<String> {
        didSet { queryItems = Redaction.normalized(queryItems) }
    }
    /// Whether the credentials of each exchange are hidden by value, and a URL's password; `true` but in ``none``.
    public var hidesCredentialValues: Bool

    /// What stands for a hidden value.
    public static let placeholder = "<redacted>"

    /// The fewest bytes a credential needs to be hidden by value: 4.
    ///
    /// Shorter values would turn ordinary text into noise; they are hidden by name only.
    public static let minimumSecretLength = 4

    /// Creates a redaction.
    ///
    /// - Parameters:
    ///   - headers: The headers whose values are hidden.
    ///   - jsonKeys: The names whose values are hidden, wherever they stand.
    ///   - queryItems: More names hidden the same way.
    ///   - hidesCredentialValues: Whether each exchange's credentials are hidden by value; `true` by default.
    public init(
        headers: Set<Header> = [],
        jsonKeys: Set<String> = [],
        queryItems: Set<String> = [],
        hidesCredentialValues: Bool = true
    ) {
        self.headers = headers
        self.jsonKeys = Redaction.normalized(jsonKeys)
        self.queryItems = Redaction.normalized(queryItems)
        self.hidesCredentialValues = hidesCredentialValues
    }

    /// The names ``default`` hides wherever they stand: `authorization`, `proxy-authorization`, `cookie`,
    /// `set-cookie`, `password`, `passwd`, `secret`, `client_secret`, `token`, `access_token`, `refresh_token`,
    /// `id_token`, `api_key`, `apikey`, `x-api-key`, `session` and `private_key`, in any of their spellings.
    public static let defaultNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "password", "passwd", "secret",
        "client_secret", "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "x-api-key",
        "session", "private_key",
    ]

    /// Hides the credentials of every exchange by value; the headers `Authorization`, `Proxy-Authorization`,
    /// `Cookie`, `Set-Cookie` and `X-API-Key`; and the ``defaultNames`` wherever they stand.
    public static let `default` = Redaction(
        headers: [.authorization, .proxyAuthorization, .cookie, .setCookie, "X-API-Key"],
        jsonKeys: defaultNames
    )

    /// Hides nothing: fixtures and logs keep every credential.
    ///
    /// Only for exchanges whose credentials are thrown away.
    public static let none = Redaction(hidesCredentialValues: false)

    /// This redaction with more names hidden.
    ///
    /// - Parameters:
    ///   - headers: More headers.
    ///   - jsonKeys: More names.
    ///   - queryItems: More names.
    /// - Returns: The wider redaction.
    public func adding(headers: Set<Header> = [], jsonKeys: Set<String> = [], queryItems: Set<String> = []) -> Redaction
    {
        Redaction(
            headers: self.headers.union(headers),
            jsonKeys: self.jsonKeys.union(jsonKeys),
            queryItems: self.queryItems.union(queryItems),
            hidesCredentialValues: hidesCredentialValues
        )
    }

    /// A header's value, or the placeholder when the header is hidden.
    ///
    /// The value is hidden by name only; a log of an exchange also hides the exchange's credentials by value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The header's name.
    /// - Returns: What may be shown.
    public func value(_ value: String, of name: Header) -> String {
        Redactor(self).header(value, of: name)
    }

    /// A URL's text with its password and the values of hidden query items replaced.
    ///
    /// - Parameter url: The URL.
    /// - Returns: The URL's text, safe to show.
    public func url(_ url: URL?) -> String {
        Redactor(self).url(url)
    }

    /// A body as text, with the values under hidden names replaced, cut to a length.
    ///
    /// A JSON body is shown compact with its hidden values replaced; a form body with the values of its hidden
    /// fields replaced; any other UTF-8 text with the values after hidden names (`name=value`, `name: value`)
    /// replaced; a body that is not text as a count of bytes.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - limit: The most bytes of text shown, cut before a character rather than through it.
    /// - Returns: What may be shown.
    public func body(_ body: Data, limit: Int) -> String {
        Redactor(self).body(body, limit: limit)
    }

    /// Whether a name, as it stands in a header, a JSON key, a form field, a query item or text, is hidden.
    func hides(name: some StringProtocol) -> Bool {
        let normalized = Redaction.normalized(name)
        return jsonKeys.contains(normalized) || queryItems.contains(normalized)
    }

    /// Whether a header's value is hidden by its name.
    func hides(header: Header) -> Bool {
        headers.contains(header) || hides(name: header.name)
    }

    /// A name as it is compared: lowercased, without `_`, `-` and `.`.
    static func normalized(_ name: some StringProtocol) -> String {
        let utf8 = name.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return String(
                name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" && $0 != "." }.map(Character.init)
            )
        }
        // ASCII, nearly every name: lowercased and filtered in one pass, into a string made once.
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-") && byte != UInt8(ascii: ".") {
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                count += 1
            }
            return count
        }
    }

    private static func normalized(_ names: Set<String>) -> Set<String> {
        Set(names.map { normalized($0) })
    }
}
