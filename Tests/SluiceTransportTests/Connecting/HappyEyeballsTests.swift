import Testing

@testable import SluiceTransport

/// The order a host's addresses are tried in (RFC 8305 section 4) and the attempt delay's bounds (section 5).
@Suite struct HappyEyeballsTests {
    /// Addresses from their text: `6a` and `4a` stand for IPv6 and IPv4 addresses, in the resolver's order.
    static func addresses(_ names: [String]) throws -> [SocketAddress] {
        try names.map { name in
            let number = try #require(name.last?.asciiValue) - 96
            let host = name.hasPrefix("6") ? "2001:db8::\(number)" : "192.0.2.\(number)"
            return try #require(SocketAddress.numeric(host: host, port: 443))
        }
    }

    @Test(
        arguments: [
            // The first address's family first, then the families in turn, each in the resolver's order.
            (["6a", "6b", "4a", "4b"], ["6a", "4a", "6b", "4b"]),
            (["4a", "4b", "6a", "6b"], ["4a", "6a", "4b", "6b"]),
            (["6a", "4a", "4b", "4c"], ["6a", "4a", "4b", "4c"]),
            (["6a", "6b", "6c", "4a"], ["6a", "4a", "6b", "6c"]),
            (["4a", "6a", "4b", "6b"], ["4a", "6a", "4b", "6b"]),
            // One family, or one address, keeps its order.
            (["6a", "6b"], ["6a", "6b"]),
            (["4a"], ["4a"]),
            ([], []),
        ]
    )
    func addressesAreInterleavedByFamily(resolved: [String], tried: [String]) throws {
        let ordered = HappyEyeballs.ordered(try Self.addresses(resolved))
        #expect(ordered.map(\.description) == (try Self.addresses(tried)).map(\.description))
    }

    @Test(
        arguments: [
            (Duration.milliseconds(250), Duration.milliseconds(250)),
            (.milliseconds(10), .milliseconds(100)),
            (.zero, .milliseconds(100)),
            (.seconds(5), .seconds(2)),
            (.milliseconds(2_000), .seconds(2)),
        ]
    )
    func theAttemptDelayIsHeldWithinWhatTheRFCRecommends(asked: Duration, used: Duration) {
        #expect(HappyEyeballs.clamped(asked) == used)
        #expect(SocketRequestPerformer.AddressSettings(connectionAttemptDelay: asked).connectionAttemptDelay == used)
    }

    @Test func theSettingsDefaultToTheRFCsDelayAndAShortCache() {
        let settings = SocketRequestPerformer.Configuration().addresses
        #expect(settings.connectionAttemptDelay == .milliseconds(250))
        #expect(settings.cacheLifetime == .seconds(30))
        #expect(settings.maximumCachedHosts == 256)
        let disabled = SocketRequestPerformer.AddressSettings(cacheLifetime: .seconds(-1), maximumCachedHosts: -3)
        #expect(disabled.cacheLifetime == .zero)
        #expect(disabled.maximumCachedHosts == 0)
    }
}
