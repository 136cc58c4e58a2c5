import Foundation
import SluiceCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a performer throws becomes the error a client reports, for code that drives a performer outside a client.
@Suite struct TransportFailureTests {
    let request: URLRequest

    init() throws {
        request = URLRequest(url: try #require(URL(string: "https://api.example.com/items")))
    }

    @Test func namesEachFailureAsAClientDoes() {
        let cancelled = SluiceError(transportFailure: CancellationError(), request: request)
        #expect(cancelled.code == .cancelled)
        #expect(cancelled.request?.url == request.url)
        #expect(SluiceError(transportFailure: URLError(.cancelled), request: request).code == .cancelled)
        #expect(SluiceError(transportFailure: URLError(.timedOut), request: request).code == .timedOut)
        let lost = SluiceError(transportFailure: URLError(.networkConnectionLost), request: request)
        #expect(lost.code == .transport)
        #expect((lost.underlyingError as? URLError)?.code == .networkConnectionLost)
    }

    @Test func passesASluiceErrorThroughWithTheRequestAdded() {
        let original = SluiceError(.transport, message: "the connection closed before the head")
        let passed = SluiceError(transportFailure: original, request: request)
        #expect(passed.code == .transport)
        #expect(passed.message == "the connection closed before the head")
        #expect(passed.request?.url == request.url)
    }
}
