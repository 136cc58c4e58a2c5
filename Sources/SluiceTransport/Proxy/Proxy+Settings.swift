import Foundation

extension Proxy {
    /// Which proxy, if any, ``SocketRequestPerformer`` sends each request through.
    ///
    /// By default the performer reads them from the environment as curl does (``environment``); a configuration names
    /// them itself, or none:
    ///
    /// ```swift
    /// let proxy = try Proxy(url: "http://proxy.internal:3128")
    /// let throughProxy = SocketRequestPerformer.Configuration(
    ///     proxies: Proxy.Settings(http: proxy, https: proxy, noProxy: ["localhost", "10.0.0.0/8", ".internal"])
    /// )
    /// let direct = SocketRequestPerformer.Configuration(proxies: .none)
    /// ```
    ///
    /// A request to a Unix domain socket never goes through a proxy.
    public struct Settings: Sendable {
        /// The proxy for `http://` URLs, or why the one the environment names is not usable.
        private var http: Result<Proxy, SluiceError>?
        /// The proxy for `https://` URLs, or why the one the environment names is not usable.
        private var https: Result<Proxy, SluiceError>?
        /// The hosts reached directly, or why the list the environment gives is not usable.
        private var noProxy: Result<NoProxy, SluiceError>

        /// No proxy: every request goes directly.
        public static let none = Proxy.Settings()

        /// The proxies the process's environment names, read as curl reads them (see ``init(environment:)``).
        public static var environment: Proxy.Settings {
            Proxy.Settings(environment: ProcessInfo.processInfo.environment)
        }

        /// Names the proxies.
        ///
        /// - Parameters:
        ///   - http: The proxy for `http://` URLs; `nil` to send them directly.
        ///   - https: The proxy for `https://` URLs; `nil` to send them directly.
        ///   - noProxy: The hosts reached directly, as `NO_PROXY` gives them: `*`, host names matching themselves and
        ///     every host under them (`example.com`, `.example.com`), IP addresses and CIDR ranges (`10.0.0.0/8`,
        ///     `::1`), each with an optional `:port`. An entry that is none of these fails every request that would use
        ///     a proxy, with a ``SluiceError`` naming it.
        public init(http: Proxy? = nil, https: Proxy? = nil, noProxy: [String] = []) {
            self.http = http.map { .success($0) }
            self.https = https.map { .success($0) }
            do throws(SluiceError) {
                self.noProxy = .success(try NoProxy(entries: noProxy, source: "the noProxy list"))
            } catch {
                self.noProxy = .failure(error)
            }
        }

        /// Reads the proxies from environment variables, as curl does.
        ///
        /// - `http://` URLs: `http_proxy` (only in lower case: a web server sets `HTTP_PROXY` from a request's `Proxy`
        ///   header), else `all_proxy`, else `ALL_PROXY`.
        /// - `https://` URLs: `https_proxy`, else `HTTPS_PROXY`, else `all_proxy`, else `ALL_PROXY`.
        /// - The hosts reached directly: `no_proxy`, else `NO_PROXY`; entries separated by commas or white space, as
        ///   ``init(http:https:noProxy:)`` describes them.
        ///
        /// The first variable set counts, even when it is empty: an empty `https_proxy` means no proxy for `https://`,
        /// whatever `ALL_PROXY` says. A value is a proxy URL as ``Proxy/init(url:)`` reads it. A value that is not one,
        /// or a `NO_PROXY` entry that is not a host, address or range, fails the requests it concerns with a
        /// ``SluiceError`` that names the variable; nothing is sent directly in its place.
        ///
        /// - Parameter environment: The variables, such as `ProcessInfo.processInfo.environment`.
        public init(environment: [String: String]) {
            func proxy(_ names: [String]) -> Result<Proxy, SluiceError>? {
                guard let name = names.first(where: { environment[$0] != nil }), let value = environment[name],
                    !value.trimmingCharacters(in: .whitespaces).isEmpty
                else { return nil }
                do throws(SluiceError) {
                    return .success(try Proxy(url: value))
                } catch {
                    return .failure(
                        SluiceError(
                            .transport,
                            message: "the environment variable \(name) does not name a usable proxy: \(error.message)",
                            underlyingError: error.underlyingError
                        )
                    )
                }
            }
            http = proxy(["http_proxy", "all_proxy", "ALL_PROXY"])
            https = proxy(["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"])
            if let name = ["no_proxy", "NO_PROXY"].first(where: { environment[$0] != nil }),
                let list = environment[name]
            {
                do throws(SluiceError) {
                    noProxy = .success(try NoProxy(parsing: list, source: "the environment variable \(name)"))
                } catch {
                    noProxy = .failure(error)
                }
            } else {
                noProxy = .success(NoProxy())
            }
        }

        /// Whether no URL goes through a proxy: neither `http://` nor `https://` has one, usable or not.
        package var namesNone: Bool { http == nil && https == nil }

        /// The proxy a request to a URL goes through, or `nil` when it goes directly.
        ///
        /// - Parameter url: The request's URL; only `http://` and `https://` URLs go through a proxy.
        /// - Returns: The proxy, or `nil`.
        /// - Throws: ``SluiceError`` when the settings that decide it are not usable (a malformed variable).
        public func proxy(for url: URL) throws(SluiceError) -> Proxy? {
            let chosen: Result<Proxy, SluiceError>?
            switch url.scheme?.lowercased() {
            case "http": chosen = http
            case "https": chosen = https
            default: return nil
            }
            guard let chosen, let host = url.host, !host.isEmpty else { return nil }
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            if try noProxy.get().matches(host: host, port: port) {
                return nil
            }
            return try chosen.get()
        }
    }
}
