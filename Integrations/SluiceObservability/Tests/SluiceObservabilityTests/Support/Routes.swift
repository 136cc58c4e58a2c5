import SluiceCore
import SluiceTesting

extension LoopbackServer {
    /// Answers the first request for `path` with 503, and every later one with `ok`.
    func routeBusyOnce(_ path: String) {
        let calls = Locked(0)
        route("GET", path) { _ in
            let call = calls.withLock { count in
                count += 1
                return count
            }
            return call == 1 ? .text("busy", status: 503) : .text("ok")
        }
    }
}

extension RetryingPerformer.Policy {
    /// Up to three attempts, each at once: a jitter of 0 makes every wait 0, so no test waits on a clock.
    static let immediate = RetryingPerformer.Policy(maximumAttempts: 3, deadline: nil, randomFraction: { 0 })
}
