// Which proxy a request goes through: the environment read as curl reads it, NO_PROXY's rules, and proxy URLs.
import Foundation
import SluiceCore
import SluiceTransport
import Testing

/// The proxy settings as pure functions of an environment dictionary and a URL.
@Suite struct ProxySettingsTests {
    /// The proxy chosen for a URL, as its URL, or `"direct"`.
    private func chosen(_ environment: [String: String], _ url: String) throws -> String {
        let proxy = try Proxy.Settings(environment: environment).proxy(for: try #require(URL(string: url)))
        return proxy.map { "\($0)" } ?? "direct"
    }

    /// Which variable counts for which scheme, in curl's order.
    @Test(
        arguments: [
            (["http_proxy": "http://a:1"], "http://x/", "http://a:1"),
            (["HTTP_PROXY": "http://a:1"], "http://x/", "direct"),
            (["http_proxy": "http://a:1"], "https://x/", "direct"),
            (["https_proxy": "http://a:1"], "https://x/", "http://a:1"),
            (["HTTPS_PROXY": "http://a:1"], "https://x/", "http://a:1"),
            (["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"], "https://x/", "http://a:1"),
            (["all_proxy": "socks5h://s:9"], "http://x/", "socks5h://s:9"),
            (["ALL_PROXY": "socks5://s:9"], "https://x/", "socks5://s:9"),
            (["all_proxy": "http://a:1", "ALL_PROXY": "http://b:2"], "https://x/", "http://a:1"),
            (["https_proxy": "http://a:1", "ALL_PROXY": "http://b:2"], "https://x/", "http://a:1"),
            (["http_proxy": "http://a:1", "ALL_PROXY": "http://b:2"], "https://x/", "http://b:2"),
            // The first variable set counts even when empty.
            (["https_proxy": "", "ALL_PROXY": "http://b:2"], "https://x/", "direct"),
            (["http_proxy": " ", "all_proxy": "http://b:2"], "http://x/", "direct"),
            // No scheme is an HTTP proxy; no port is 1080.
            (["http_proxy": "proxy.example"], "http://x/", "http://proxy.example:1080"),
            (["http_proxy": "proxy.example:3128/"], "http://x/", "http://proxy.example:3128"),
            (["http_proxy": "http://[::1]:3128"], "http://x/", "http://[::1]:3128"),
            (["all_proxy": "http://a:1"], "ws://x/", "direct"),
            (["all_proxy": "http://a:1"], "http+unix://%2Ftmp%2Fs.sock/", "direct"),
            ([:], "https://x/", "direct"),
        ] as [([String: String], String, String)]
    )
    func variables(environment: [String: String], url: String, expected: String) throws {
        #expect(try chosen(environment, url) == expected)
    }

    /// NO_PROXY's entries: suffixes, leading dots, ports, addresses, ranges, `*`.
    @Test(
        arguments: [
            ("example.com", "http://example.com/", true),
            ("example.com", "http://api.example.com/", true),
            ("example.com", "http://badexample.com/", false),
            (".example.com", "http://example.com/", true),
            (".example.com", "http://a.b.example.com/", true),
            ("*.example.com", "http://a.example.com/", true),
            ("EXAMPLE.com.", "http://Api.Example.COM./", true),
            ("example.com:8080", "http://example.com:8080/", true),
            ("example.com:8080", "http://example.com/", false),
            ("example.com:443", "https://example.com/", true),
            ("localhost", "http://localhost:1234/", true),
            ("127.0.0.1", "http://127.0.0.1:80/", true),
            ("127.0.0.1", "http://127.0.0.2/", false),
            ("10.0.0.0/8", "http://10.200.3.4/", true),
            ("10.0.0.0/8", "http://11.0.0.1/", false),
            ("192.168.1.0/25", "http://192.168.1.127/", true),
            ("192.168.1.0/25", "http://192.168.1.128/", false),
            ("10.0.0.0/8", "http://ten.example/", false),
            ("::1", "http://[::1]:8080/", true),
            ("[::1]", "http://[::1]/", true),
            ("[::1]:8080", "http://[::1]:8080/", true),
            ("[::1]:8080", "http://[::1]:9090/", false),
            ("fe80::/10", "http://[fe80::1]/", true),
            ("fe80::/10", "http://[fec0::1]/", false),
            ("0.0.0.0/0", "http://1.2.3.4/", true),
            ("*", "http://anything/", true),
            ("a.test, b.test  c.test", "http://c.test/", true),
            ("a.test,,b.test", "http://b.test/", true),
            ("", "http://example.com/", false),
        ] as [(String, String, Bool)]
    )
    func noProxy(list: String, url: String, direct: Bool) throws {
        let environment = ["http_proxy": "http://p:1", "https_proxy": "http://p:1", "NO_PROXY": list]
        #expect(try chosen(environment, url) == (direct ? "direct" : "http://p:1"))
    }

    /// `no_proxy` wins over `NO_PROXY`; the configuration reads the same rules from a list.
    @Test func noProxySources() throws {
        let both = ["http_proxy": "http://p:1", "no_proxy": "a.test", "NO_PROXY": "b.test"]
        #expect(try chosen(both, "http://a.test/") == "direct")
        #expect(try chosen(both, "http://b.test/") == "http://p:1")
        let settings = Proxy.Settings(http: Proxy(.http, host: "p", port: 1), noProxy: ["10.0.0.0/8", ".internal"])
        #expect(try settings.proxy(for: try #require(URL(string: "http://10.1.1.1/"))) == nil)
        #expect(try settings.proxy(for: try #require(URL(string: "http://db.internal/"))) == nil)
        #expect(try settings.proxy(for: try #require(URL(string: "http://example.com/")))?.host == "p")
        #expect(try settings.proxy(for: try #require(URL(string: "https://example.com/"))) == nil)
        #expect(try Proxy.Settings.none.proxy(for: try #require(URL(string: "http://example.com/"))) == nil)
    }

    /// A proxy URL's parts: percent-decoded credentials, kinds, the port.
    @Test func proxyURLs() throws {
        let proxy = try Proxy(url: "http://al%40ice:p%3Ass%20w@proxy.example:3128")
        #expect(proxy.kind == .http)
        #expect(proxy.host == "proxy.example")
        #expect(proxy.port == 3128)
        #expect(proxy.username == "al@ice")
        #expect(proxy.password == "p:ss w")
        #expect("\(proxy)" == "http://proxy.example:3128")
        #expect(try Proxy(url: "SOCKS5H://s").kind == .socks5h)
        #expect(try Proxy(url: "socks5://s").port == 1080)
    }

    /// A malformed proxy URL fails with a message naming what is wrong, its credentials hidden.
    @Test(
        arguments: [
            ("", #"the proxy URL "" is empty"#),
            (
                "https://u:topsecret@p:1",
                #"the proxy URL "https://<redacted>@p:1" has the scheme https://, a proxy the transport does not speak: use http://, socks5:// or socks5h://"#
            ),
            (
                "socks4://p",
                #"the proxy URL "socks4://p" has the scheme socks4://, a proxy the transport does not speak: use http://, socks5:// or socks5h://"#
            ),
            ("http://p:0", #"the proxy URL "http://p:0" has the port 0, outside 1 to 65535"#),
            ("http://:3128", #"the proxy URL "http://:3128" names no host"#),
            (
                "http://p:1/path",
                #"the proxy URL "http://p:1/path" has a path, query or fragment, which a proxy URL does not take"#
            ),
            ("http://u:secret@:8", #"the proxy URL "http://<redacted>@:8" names no host"#),
            ("http://p:port", #"the proxy URL "http://p:port" is not a valid URL"#),
        ] as [(String, String)]
    )
    func malformedProxyURLs(url: String, message: String) {
        let error = #expect(throws: SluiceError.self) { try Proxy(url: url) }
        #expect(error?.message == message)
    }

    /// A malformed variable fails the requests it concerns, naming the variable; others are unaffected.
    @Test func malformedVariables() throws {
        let environment = ["https_proxy": "ftp://u:hunter22@p", "http_proxy": "http://p:1"]
        let error = #expect(throws: SluiceError.self) { try chosen(environment, "https://x/") }
        #expect(
            error?.message
                == #"the environment variable https_proxy does not name a usable proxy: the proxy URL "ftp://<redacted>@p" has the scheme ftp://, a proxy the transport does not speak: use http://, socks5:// or socks5h://"#
        )
        #expect(try chosen(environment, "http://x/") == "http://p:1")
        let badList = ["http_proxy": "http://p:1", "no_proxy": "ok.test, 10.0.0.0/33"]
        let listError = #expect(throws: SluiceError.self) { try chosen(badList, "http://x/") }
        #expect(
            listError?.message
                == #"the entry "10.0.0.0/33" in the environment variable no_proxy is not a host name, an IP address or a CIDR range, with an optional port"#
        )
    }
}
