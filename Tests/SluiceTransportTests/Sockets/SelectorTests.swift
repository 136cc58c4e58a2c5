import Foundation
import Testing

@testable import SluiceTransport

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The readiness queue under Sluice's own transport, on a connected pair of Unix sockets.
@Suite struct SelectorTests {
    /// Two connected stream sockets.
    static func socketPair() throws -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        #if canImport(Darwin)
        let type = SOCK_STREAM
        #else
        let type = Int32(SOCK_STREAM.rawValue)
        #endif
        try #require(socketpair(AF_UNIX, type, 0, &pair) == 0)
        return (pair[0], pair[1])
    }

    private static func reports(of selector: Selector) -> [Readiness] {
        var reports: [Readiness] = []
        _ = selector.wait(milliseconds: 0) { reports.append($0) }
        return reports
    }

    @Test func reportsWhatADescriptorWaitsFor() throws {
        let selector = try Selector()
        defer { selector.close() }
        let (mine, peer) = try Self.socketPair()
        defer { _ = (close(mine), close(peer)) }
        selector.add(mine, .readable)
        #expect(Self.reports(of: selector).isEmpty)
        #expect(write(peer, "x", 1) == 1)
        let reports = Self.reports(of: selector)
        #expect(reports.map(\.descriptor) == [mine])
        #expect(reports.first?.readable == true)
        selector.modify(mine, from: .readable, to: [.readable, .writable])
        #expect(Self.reports(of: selector).first.map { $0.readable && $0.writable } == true)
        selector.remove(mine, [.readable, .writable])
        #expect(Self.reports(of: selector).isEmpty)
    }

    /// A connection stops reading while its consumer is behind; if the peer hangs up meanwhile, the loop must not
    /// be told of it again and again until the consumer catches up.
    @Test func saysNothingOfAHangUpWhileADescriptorWaitsForNothing() throws {
        let selector = try Selector()
        defer { selector.close() }
        let (mine, peer) = try Self.socketPair()
        defer { close(mine) }
        selector.add(mine, .readable)
        selector.modify(mine, from: .readable, to: [])
        // Shut down before closing: a program another test is starting holds a copy of every descriptor until it
        // runs, and a close alone would not hang up while that copy lives.
        shutdown(peer, Int32(SHUT_RDWR))
        close(peer)
        #expect(Self.reports(of: selector).isEmpty)
        #expect(Self.reports(of: selector).isEmpty)
        selector.modify(mine, from: [], to: .readable)
        let reports = Self.reports(of: selector)
        #expect(reports.map(\.descriptor) == [mine])
        #expect(reports.first?.readable == true)
    }
}
