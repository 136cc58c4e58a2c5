// What a request through a proxy looks like on the wire, and how its connections are pooled.
import Foundation
import SluiceCore
import SluiceTransport
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request heads and pool keys through proxies, as pure functions.
@Suite struct ProxyRequestHeadTests {
    private let http = Proxy(.http, host: "proxy.test", port: 3128, username: "alice", password: "s3cret")
    private let socks = Proxy(.socks5h, host: "socks.test", port: 1080)

    /// The head's text for a request to a URL through a proxy.
    private func head(_ url: String, through proxy: Proxy?, headers: [String: String] = [:]) throws -> String {
        var request = URLRequest(url: try #require(URL(string: url)))
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let url = try #require(request.url)
        let origin = try #require(Origin(url, unixSocketPath: nil, servesHTTPS: true, proxy: proxy))
        return String(decoding: try RequestHead(request, target: origin).bytes, as: UTF8.self)
    }

    /// `http://` through an HTTP proxy: absolute form, the origin's `Host`, the proxy's credentials in place of the
    /// request's own.
    @Test func absoluteFormThroughAnHTTPProxy() throws {
        let text = try head(
            "http://example.com:8080/a/b?c=d",
            through: http,
            headers: ["Proxy-Authorization": "Basic cmVxdWVzdHM="]
        )
        #expect(text.hasPrefix("GET http://example.com:8080/a/b?c=d HTTP/1.1\r\nHost: example.com:8080\r\n"))
        #expect(text.contains("Proxy-Authorization: Basic YWxpY2U6czNjcmV0\r\n"))
        #expect(!text.contains("cmVxdWVzdHM="))
        let withoutCredentials = try head("http://example.com/", through: Proxy(.http, host: "p"))
        #expect(withoutCredentials.hasPrefix("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n"))
        #expect(!withoutCredentials.contains("Proxy-Authorization"))
    }

    /// Through a tunnel the origin form goes to the origin, without any `Proxy-Authorization`.
    @Test func originFormThroughATunnel() throws {
        for (url, proxy) in [("https://example.com/x", http), ("http://example.com/x", socks)] {
            let text = try head(url, through: proxy, headers: ["Proxy-Authorization": "Basic cmVxdWVzdHM="])
            #expect(text.hasPrefix("GET /x HTTP/1.1\r\nHost: example.com\r\n"))
            #expect(!text.contains("Proxy-Authorization"))
        }
        let direct = try head("http://example.com/x", through: nil, headers: ["Proxy-Authorization": "Basic eA=="])
        #expect(direct.contains("Proxy-Authorization: Basic eA==\r\n"))
    }

    /// An origin reached directly and through a proxy, or through two proxies, are pooled apart; a Unix socket never
    /// goes through one.
    @Test func poolKeys() throws {
        let url = try #require(URL(string: "https://example.com/"))
        let direct = Origin(url, unixSocketPath: nil, servesHTTPS: true)
        let proxied = Origin(url, unixSocketPath: nil, servesHTTPS: true, proxy: http)
        let otherProxy = Origin(url, unixSocketPath: nil, servesHTTPS: true, proxy: socks)
        #expect(direct != proxied)
        #expect(proxied != otherProxy)
        #expect(proxied == Origin(url, unixSocketPath: nil, servesHTTPS: true, proxy: http))
        #expect(proxied?.description == "example.com:443 through the proxy http://proxy.test:3128")
        let plain = try #require(URL(string: "http://example.com/"))
        let unix = Origin(plain, unixSocketPath: "/tmp/s.sock", proxy: http)
        #expect(unix == Origin(plain, unixSocketPath: "/tmp/s.sock"))
    }
}
