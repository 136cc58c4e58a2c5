// mattt/EventSource, the peer the server-sent events benchmark measures, is compiled here from its package checkout
// (the other files of this folder are links into it), with this file beside it: its `EventSource` connection class
// calls `URLSession.bytes(for:delegate:)`, which FoundationNetworking on Linux lacks, so the package does not build
// there as it is. The benchmark uses its parser alone (`AsyncServerSentEventsSequence`), never the connection, so this
// stand-in only has to compile; it fails at once if anything calls it.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking

extension URLSession {
    /// A stand-in that only throws `URLError(.unsupportedURL)`.
    ///
    /// The benchmark never opens a connection with it.
    func bytes(
        for request: URLRequest,
        delegate: (any URLSessionTaskDelegate)? = nil
    ) async throws -> (AsyncThrowingStream<UInt8, any Error>, URLResponse) {
        throw URLError(.unsupportedURL)
    }
}
#endif
