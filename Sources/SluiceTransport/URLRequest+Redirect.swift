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

/// The redirects every performer follows, and those it refuses: the one rule, documented in
/// <doc:ProductionBehaviour>, that ``SocketRequestPerformer`` and ``NetworkRequestPerformer`` both apply.
///
/// A network server chooses where a redirect goes, and so must not send the client anywhere a network request
/// could not already go: to a local file, another protocol's server, or a Unix socket on the client's machine.
package enum RedirectRule {
    /// Why a redirect is refused, or `nil` when it may be followed.
    ///
    /// - A `Location` holding a control character (CR, LF, NUL, a tab…) is refused, whatever it resolves to.
    /// - The target's scheme is `http` or `https`; `http+unix` only from a request that was already on that socket.
    /// - From `https` to `http` only when `allowingDowngrade`: the redirect would send the request in clear text.
    ///
    /// - Parameters:
    ///   - previous: The URL that answered with the redirect.
    ///   - location: The `Location` field as it arrived, if the performer sees it.
    ///   - target: The URL the redirect resolves to.
    ///   - allowingDowngrade: Whether a redirect from `https` to `http` may be followed.
    /// - Returns: The reason, to follow "did not follow the redirect to …: ".
    package static func refusal(
        from previous: URL?,
        location: String?,
        to target: URL,
        allowingDowngrade: Bool
    ) -> String? {
        if let location,
            let bad = location.unicodeScalars.first(where: { $0 == "\t" || HeaderValidation.isForbiddenInValue($0) })
        {
            return
                "the Location field holds \(bad == "\t" ? "the control character U+0009" : HeaderValidation.describe(bad))"
        }
        let from = previous?.scheme?.lowercased()
        switch target.scheme?.lowercased() {
        case "http":
            if from == "https", !allowingDowngrade {
                return "it leads from https to http, which would send the request in clear text (a performer's "
                    + "followsRedirectsFromHTTPSToHTTP allows it)"
            }
            return nil
        case "https":
            return nil
        case "http+unix":
            guard from == "http+unix" else {
                return "a network server may not send the request to a Unix socket on this machine"
            }
            guard previous?.host(percentEncoded: true) == target.host(percentEncoded: true) else {
                return "it leads to another Unix socket than the one the request was sent to"
            }
            return nil
        case let scheme:
            return
                "only http and https redirects are followed, and this one is \(scheme.map { "to \($0)" } ?? "without a scheme")"
        }
    }

    /// The error of a refused redirect: the transport stage failed, and nothing was sent to the target.
    package static func refused(to target: URL, because reason: String) -> SluiceError {
        SluiceError(.transport, message: "did not follow the redirect to \(target.absoluteString): \(reason)")
    }
}
