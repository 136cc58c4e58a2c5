import Foundation
import SluiceTesting

/// A route's answer held back until the test releases it, with an event when the request has arrived: the test
/// waits for events, never for time.
final class Held: Sendable {
    private let arrivals: AsyncStream<Void>
    private let arrived: AsyncStream<Void>.Continuation
    private let release = DispatchSemaphore(value: 0)

    init() {
        (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
    }

    /// Registers the route: it signals each arrival, then answers `text` once released, or 503 after 30 s without a
    /// release, so that a failed test never hangs the server.
    func route(_ path: String, on server: LoopbackServer, answering text: String) {
        server.route("GET", path) { [self] _ in
            arrived.yield()
            guard release.wait(timeout: .now() + 30) == .success else { return .text("never released", status: 503) }
            return .text(text)
        }
    }

    /// Waits for the first request to arrive at the route; call it once.
    func firstArrival() async {
        for await _ in arrivals {
            return
        }
    }

    /// Lets one held request have its answer.
    func releaseOne() {
        release.signal()
    }
}

/// Yields until `condition` holds, for state that offers no event; fails after 30 s rather than hang.
func yield(until what: String, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now.advanced(by: .seconds(30))
    while !condition() {
        guard ContinuousClock.now < deadline else {
            throw WaitFailure(what: what)
        }
        await Task.yield()
    }
}

/// A condition that did not come to hold.
struct WaitFailure: Error, CustomStringConvertible {
    let what: String
    var description: String { "gave up waiting for \(what)" }
}
