import SluiceCore
import SluiceTransport
import Testing

// errno's codes come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

@Suite struct SocketIOResultTests {
    @Test(arguments: [
        (EAGAIN, SocketIOResult.wouldBlock), (EWOULDBLOCK, .wouldBlock), (ECONNRESET, .failed(ECONNRESET)),
        (EPIPE, .failed(EPIPE)), (EBADF, .failed(EBADF)),
    ])
    func aFailedTransferMeansWhatItsCodeSays(code: Int32, result: SocketIOResult) {
        #expect(SocketIOResult(failedWith: code) == result)
    }

    @Test func anInterruptedTransferIsMadeAgain() {
        #expect(SocketIOResult(failedWith: EINTR) == nil)
    }
}
