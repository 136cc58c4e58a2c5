/// The time elapsed on a clock since the stopwatch was made, for the waits and limits that take an injected clock
/// (`any Clock<Duration>`, whose instants cannot be stored without knowing the clock's type).
package struct Stopwatch: Sendable {
    private let elapsed: @Sendable () -> Duration

    /// Starts a stopwatch on `clock`, now.
    package init(_ clock: any Clock<Duration>) {
        elapsed = Stopwatch.start(clock)
    }

    /// The time elapsed since the stopwatch was made.
    package func read() -> Duration {
        elapsed()
    }

    private static func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
