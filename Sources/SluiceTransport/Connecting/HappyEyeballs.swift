/// How a host's addresses are tried, after RFC 8305 ("Happy Eyeballs Version 2"): in the resolver's order with the two
/// families interleaved, one attempt started at a time, the next one beside it after the connection attempt delay or
/// as soon as an attempt fails, until a TCP connection comes up (``ConnectionRace``).
///
/// One `getaddrinfo` call with `AF_UNSPEC` asks for both families at once; it has already sorted the answer by
/// RFC 6724's rules, so the family of its first address is the one preferred.
enum HappyEyeballs {
    /// The connection attempt delay RFC 8305 section 5 recommends by default.
    static let defaultAttemptDelay = Duration.milliseconds(250)

    /// The delays RFC 8305 section 5 recommends at least and at most.
    static let attemptDelayBounds = Duration.milliseconds(100)...Duration.seconds(2)

    /// A delay held within ``attemptDelayBounds``.
    static func clamped(_ delay: Duration) -> Duration {
        min(max(delay, attemptDelayBounds.lowerBound), attemptDelayBounds.upperBound)
    }

    /// The addresses in the order they are tried (RFC 8305 section 4, with a "First Address Family Count" of 1): the
    /// first address, then one of the other family, then one of the first, and so on, each family in the resolver's
    /// order, the rest of the longer family at the end.
    ///
    /// - Parameter addresses: The addresses in the resolver's order.
    /// - Returns: The same addresses, interleaved by family.
    static func ordered(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return [] }
        var preferred = addresses.lazy.filter { $0.family == first.family }.makeIterator()
        var other = addresses.lazy.filter { $0.family != first.family }.makeIterator()
        var ordered: [SocketAddress] = []
        ordered.reserveCapacity(addresses.count)
        while ordered.count < addresses.count {
            if let next = preferred.next() {
                ordered.append(next)
            }
            if let next = other.next() {
                ordered.append(next)
            }
        }
        return ordered
    }
}

/// One race of connection attempts on a host's addresses: the first whose TCP connection comes up claims it, and every
/// other attempt is abandoned and its socket closed; the winner goes on with its proxy's and TLS handshakes alone.
///
/// Attempts enter the race when they are made and claim it on their loop's thread, each under its own lock; the
/// race's state is behind a lock of its own, taken last.
final class ConnectionRace: Sendable {
    /// Why an attempt failed before it reached its peer (refused, unreachable, no route): the next address may answer.
    struct Unreachable: Error {
        /// The attempt's error, as the caller sees it if no address answers.
        var error: any Error
    }

    /// The error of an attempt abandoned because another one won.
    struct Abandoned: Error {}

    private struct State {
        var winner: ObjectIdentifier?
        var attempts: [StreamEstablishment] = []
    }

    private let state = Locked(State())

    /// Whether an attempt has claimed the race.
    var isDecided: Bool {
        state.withLock { $0.winner != nil }
    }

    /// Enters an attempt just made; one made after the race was decided is abandoned at once.
    func enter(_ attempt: StreamEstablishment) {
        let decided = state.withLock { state in
            if state.winner == nil {
                state.attempts.append(attempt)
            }
            return state.winner != nil
        }
        if decided {
            attempt.abandon()
        }
    }

    /// Claims the race for an attempt whose TCP connection is up, and abandons the others.
    ///
    /// - Returns: Whether the attempt won; `false` when another one did first.
    func claim(_ attempt: StreamEstablishment) -> Bool {
        let id = ObjectIdentifier(attempt)
        let losers = state.withLock { state -> [StreamEstablishment]? in
            guard state.winner == nil else { return nil }
            state.winner = id
            defer { state.attempts = [] }
            return state.attempts.filter { ObjectIdentifier($0) != id }
        }
        guard let losers else { return false }
        for loser in losers {
            loser.abandon()
        }
        return true
    }

    /// Lets go of the attempts when the race is over: each holds the race, so that until then they hold each other,
    /// and the winner's stream (its TLS object with it) would never be freed.
    private func end() {
        state.withLock { $0.attempts = [] }
    }

    /// What one task of a race reports.
    private enum Outcome<Value: Sendable>: Sendable {
        case attempt(Result<Value, any Error>)
        /// The attempt delay after the attempt at this index has passed.
        case delayElapsed(after: Int)
    }

    /// Races attempts on the addresses in order: the first at once, each next one after `delay` or as soon as an
    /// attempt fails before reaching its peer, until one succeeds.
    ///
    /// - Parameters:
    ///   - addresses: The addresses, in the order to try them (``HappyEyeballs/ordered(_:)``).
    ///   - delay: How long an attempt runs alone before the next one starts beside it.
    ///   - clock: What the delay is measured on.
    ///   - attempt: Makes an attempt on one address, entered in the race, and takes it to its end; throws
    ///     ``Unreachable`` for a failure the next address may not share.
    /// - Returns: What the first attempt to succeed returned.
    /// - Throws: The last ``Unreachable`` when every address failed so; any other error of an attempt (a timeout, a
    ///   failure after reaching the peer, cancellation) at once, the other attempts abandoned.
    static func run<Value: Sendable>(
        addresses: [SocketAddress],
        delay: Duration,
        clock: any Clock<Duration>,
        attempt: @escaping @Sendable (SocketAddress, ConnectionRace) async throws -> Value
    ) async throws -> Value {
        let race = ConnectionRace()
        defer { race.end() }
        return try await withThrowingTaskGroup(of: Outcome<Value>?.self) { group in
            var next = 0
            var running = 0
            var startsNext = true
            var lastError: Unreachable?
            racing: while true {
                if startsNext, next < addresses.count, !race.isDecided {
                    let (address, index) = (addresses[next], next)
                    next += 1
                    running += 1
                    group.addTask {
                        do {
                            return .attempt(.success(try await attempt(address, race)))
                        } catch {
                            return .attempt(.failure(error))
                        }
                    }
                    if next < addresses.count {
                        group.addTask {
                            // Cancelled when the race ends first: nothing to report.
                            guard (try? await clock.sleep(for: delay)) != nil else { return nil }
                            return .delayElapsed(after: index)
                        }
                    }
                }
                startsNext = false
                guard let reported = try await group.next() else { break racing }
                switch reported {
                case nil:
                    continue
                case .delayElapsed(let index)?:
                    // A delay of an earlier attempt, once a failure has started the next one, is spent.
                    startsNext = index == next - 1
                case .attempt(.success(let value))?:
                    group.cancelAll()
                    return value
                case .attempt(.failure(let error))?:
                    running -= 1
                    switch error {
                    case is Abandoned:
                        break
                    case let unreachable as Unreachable:
                        lastError = unreachable
                        startsNext = true
                    default:
                        group.cancelAll()
                        throw error
                    }
                    if running == 0 && (next == addresses.count || race.isDecided) {
                        group.cancelAll()
                        break racing
                    }
                }
            }
            throw lastError ?? Unreachable(error: CancellationError())
        }
    }
}
