import Foundation

/// A proxy that ``SocketRequestPerformer`` sends requests through: an HTTP proxy, or a SOCKS5 server.
///
/// Made from a URL as the environment variables give one (`http://user:secret@proxy.example:3128`), or from its
/// parts:
///
/// ```swift
/// let fromURL = try Proxy(url: "http://proxy.example:3128")
/// let socks = Proxy(.socks5h, host: "127.0.0.1", port: 1080, username: "me", password: "secret")
/// ```
///
/// Its ``description`` never shows the user name or password.
public struct Proxy: Hashable, Sendable, CustomStringConvertible {
    /// How the performer talks to a proxy.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The URL scheme that names it.
        public let scheme: String

        /// An HTTP proxy: `http://` requests go to it in absolute form, `https://` ones through a `CONNECT` tunnel.
        public static let http = Kind(scheme: "http")
        /// A SOCKS5 server (RFC 1928), given the address the host name resolves to here.
        public static let socks5 = Kind(scheme: "socks5")
        /// A SOCKS5 server given the host name, which it resolves itself.
        public static let socks5h = Kind(scheme: "socks5h")

        /// The scheme, as a proxy URL spells it.
        public var description: String { scheme }

        /// Whether the proxy speaks SOCKS5.
        var isSOCKS: Bool { self == .socks5 || self == .socks5h }
    }

    /// How to talk to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP address (without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user name sent to the proxy, if any.
    public var username: String?
    /// The password sent to the proxy, if any.
    public var password: String?

    /// The port a proxy URL without one means, for every kind.
    public static let defaultPort = 1080

    /// Creates a proxy from its parts.
    ///
    /// - Parameters:
    ///   - kind: How to talk to it.
    ///   - host: Its host name or IP address.
    ///   - port: Its port; 1080 by default.
    ///   - username: The user name sent to it, if any.
    ///   - password: The password sent to it, if any.
    public init(
        _ kind: Kind,
        host: String,
        port: Int = Proxy.defaultPort,
        username: String? = nil,
        password: String? = nil
    ) {
        self.kind = kind
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.username = username
        self.password = password
    }

    /// Creates a proxy from a URL: `http://`, `socks5://` or `socks5h://`, with an optional user name and password
    /// (percent-encoded) and port (1080 when left out); a URL without a scheme is an HTTP proxy's.
    ///
    /// - Parameter url: The proxy URL, such as `http://user:secret@proxy.example:3128`.
    /// - Throws: ``SluiceError`` naming what is wrong with the URL, which it shows with its credentials hidden.
    public init(url: String) throws(SluiceError) {
        let text = url.trimmingCharacters(in: .whitespaces)
        let shown = Self.hidingCredentials(text)
        func invalid(_ reason: String) -> SluiceError {
            SluiceError(
                .transport,
                message: "the proxy URL \"\(shown)\" \(reason)",
                underlyingError: URLError(.badURL)
            )
        }
        guard !text.isEmpty else { throw invalid("is empty") }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased() else {
            throw invalid("is not a valid URL")
        }
        let kind: Kind
        switch scheme {
        case "http": kind = .http
        case "socks5": kind = .socks5
        case "socks5h": kind = .socks5h
        default:
            throw invalid(
                "has the scheme \(scheme)://, a proxy the transport does not speak: use http://, socks5:// or socks5h://"
            )
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("names no host") }
        guard ["", "/"].contains(components.percentEncodedPath), components.query == nil, components.fragment == nil
        else {
            throw invalid("has a path, query or fragment, which a proxy URL does not take")
        }
        let port = components.port ?? Self.defaultPort
        guard (1...65_535).contains(port) else { throw invalid("has the port \(port), outside 1 to 65535") }
        func decoded(_ part: String?, _ name: String) throws(SluiceError) -> String? {
            guard let part else { return nil }
            guard let value = part.removingPercentEncoding else {
                throw invalid("has a \(name) that is not valid percent-encoding")
            }
            return value
        }
        let username = try decoded(components.percentEncodedUser, "user name")
        let password = try decoded(components.percentEncodedPassword, "password")
        self.init(kind, host: host, port: port, username: username, password: password)
    }

    /// The proxy as messages name it, `http://proxy.example:3128`, without its credentials.
    public var description: String {
        "\(kind)://" + SocketAddress.authority(host: host, port: port)
    }

    /// Whether the proxy is given a user name or password.
    var hasCredentials: Bool { username != nil || password != nil }

    /// The `Proxy-Authorization` value for an HTTP proxy with credentials: `Basic` and the base64 of
    /// `username:password`; `nil` without credentials.
    var basicAuthorization: String? {
        guard hasCredentials else { return nil }
        return "Basic " + Data("\(username ?? ""):\(password ?? "")".utf8).base64EncodedString()
    }

    /// What a log could show of the credentials, to be hidden wherever it appears.
    ///
    /// The password, and the base64 token of the `Proxy-Authorization` value. The user name is not a secret, and hiding it everywhere would hide
    /// ordinary words.
    var credentialsToHide: [String] {
        guard let authorization = basicAuthorization else { return [] }
        let token = String(authorization.dropFirst("Basic ".count))
        return [token] + [password].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// A proxy URL with the user information between its scheme and host replaced, for messages.
    ///
    /// - Parameter text: The URL as given.
    /// - Returns: The URL with `<redacted>` in place of `user:password`, when there is any.
    static func hidingCredentials(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        let authorityEnd = text[start...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[start..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + Redaction.placeholder + String(text[at...])
    }
}
