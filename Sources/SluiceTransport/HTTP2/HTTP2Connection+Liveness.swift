import Foundation

extension HTTP2Connection {
    /// When PINGs check that the server still answers (RFC 9113 section 6.7): a connection a middlebox dropped in
    /// silence would otherwise take requests that wait until their idle timeout.
    ///
    /// When the server has sent nothing for ``pingAfterSilence``, a request about to be started waits for a PING's
    /// answer before it goes out, and a connection with requests under way sends one. A PING unanswered within
    /// ``pingTimeout`` fails the connection: the requests that waited were never sent and go to another connection
    /// whatever their method; those under way fail as on any connection lost.
    struct Liveness: Sendable, Equatable {
        /// How long the server may be silent before a PING checks it; `nil` for never.
        var pingAfterSilence: Duration?
        /// How long a PING's answer may take.
        var pingTimeout: Duration
    }

    /// Whether a request must wait for a PING's answer.
    ///
    /// It must while one is unanswered, or when the server has been silent long enough that one goes out now. Under
    /// the lock.
    func awaitsPingAnswer() -> Bool {
        if pingSent != nil { return true }
        guard let silence = liveness.pingAfterSilence, loop.now - lastReceived >= silence else { return false }
        sendPing()
        return true
    }

    /// Sends a PING and notes when.
    private func sendPing() {
        session.ping()
        pingSent = loop.now
    }

    /// The server answered the PING: the requests that waited for it go out.
    func answered() {
        pingSent = nil
        let waiting = held
        held.removeAll()
        for exchange in waiting {
            if exchange.cancelled.withLock({ $0 }) {
                dropCancelled(exchange)
            } else {
                submit(exchange)
            }
        }
    }

    /// Gives back the lease of an exchange cancelled while it waited for a PING's answer, and fails it.
    func dropCancelled(_ exchange: Exchange) {
        releaseStream()
        exchange.fail(CancellationError())
    }

    /// Fails the connection whose PING went unanswered too long, and checks one with requests under way that the
    /// server has been silent on; on the loop's tick, under the lock.
    func checkLiveness(now: ContinuousClock.Instant) {
        if let sent = pingSent {
            guard now - sent >= liveness.pingTimeout else { return }
            failConnection(
                SluiceError.connectionLost(
                    "the server did not answer a PING within \(liveness.pingTimeout) on the HTTP/2 connection to "
                        + "\(origin)"
                )
            )
            return
        }
        guard !streams.isEmpty, let silence = liveness.pingAfterSilence, now - lastReceived >= silence else { return }
        sendPing()
    }

    /// Fails the requests that waited for a PING's answer and were never sent: another connection may take them.
    func failHeld(_ error: SluiceError) {
        let waiting = held
        held.removeAll()
        for exchange in waiting {
            pool.release(self, reusable: false, idleSince: loop.now)
            exchange.fail(UnprocessedStream(error: error))
        }
    }
}
