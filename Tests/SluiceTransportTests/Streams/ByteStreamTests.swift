import Foundation
import Testing

@testable import SluiceTransport

#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The stream a connection reads and writes, plain or TLS.
@Suite struct ByteStreamTests {
    /// A program being started holds a copy of every descriptor until it runs its new image; closing the stream must
    /// end the connection all the same.
    @Test func closingEndsTheConnectionWhileACopyOfTheDescriptorLives() throws {
        let (mine, peer) = try SelectorTests.socketPair()
        defer { close(peer) }
        let copy = dup(mine)
        try #require(copy >= 0)
        defer { close(copy) }
        ByteStream(socket: Socket(descriptor: mine), tls: nil).close()
        try #require(fcntl(peer, F_SETFL, fcntl(peer, F_GETFL) | O_NONBLOCK) == 0)
        var byte: UInt8 = 0
        // The end of the stream, not "nothing yet" (-1 with EAGAIN), which is what the copy alone would leave.
        #expect(read(peer, &byte, 1) == 0)
    }
}
