import Foundation
import Testing

@testable import SluiceTransport

/// The system's OpenSSL as the transport loads it, and the origins of `https://` URLs.
@Suite struct OpenSSLTests {
    /// On Linux the library loads, from one of the names tried, with every symbol; the performer then sends
    /// `https://` itself.
    @Test(.enabled(if: OpenSSLTests.isLinux, "Apple platforms send https:// through URLSession"))
    func loadsWithEverySymbol() throws {
        let openSSL = try OpenSSL.shared.get()
        #expect(OpenSSL.candidates.map(\.0).contains(openSSL.libraryName))
        #expect(SocketRequestPerformer().handlesHTTPS)
        #expect(SocketRequestPerformer.httpsUnavailableReason == nil)
    }

    /// Whether this is Linux, where the transport loads OpenSSL (Apple platforms keep URLSession for `https://`).
    static var isLinux: Bool {
        // Apple platforms send https:// through URLSession.
        #if os(Linux)
        true
        #else
        false
        #endif
    }

    /// An `https://` URL's origin uses TLS, on port 443 unless it names one, which the `Host` field then leaves out;
    /// it is not the origin of the same host and port over plain HTTP, so their connections are pooled apart.
    @Test func anHTTPSOriginIsKeyedApart() throws {
        let secure = try #require(Self.origin("https://example.com/a", servesHTTPS: true))
        #expect(secure.usesTLS)
        #expect(secure.address == .tcp(host: "example.com", port: 443))
        #expect(secure.hostField == "example.com")
        let plain = try #require(Self.origin("http://example.com:443/a"))
        #expect(plain.hostField == "example.com:443")
        #expect(plain != secure)
        let other = try #require(Self.origin("https://example.com:8443/", servesHTTPS: true))
        #expect(other.hostField == "example.com:8443")
    }

    /// The origin of a URL, as the performer makes it.
    private static func origin(_ text: String, servesHTTPS: Bool = false) -> Origin? {
        URL(string: text).flatMap { Origin($0, unixSocketPath: nil, servesHTTPS: servesHTTPS) }
    }

    /// Without TLS, an `https://` URL has no origin here: it goes to the fallback.
    @Test func anHTTPSURLHasNoOriginWithoutTLS() throws {
        let url = try #require(URL(string: "https://example.com/"))
        #expect(Origin(url, unixSocketPath: nil, servesHTTPS: false) == nil)
        #expect(Origin(url, unixSocketPath: "/tmp/socket", servesHTTPS: true)?.usesTLS == true)
    }
}
