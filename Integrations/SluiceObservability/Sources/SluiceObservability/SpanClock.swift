import Tracing

/// Turns the `ContinuousClock` instants of a request's scopes into the wall-clock instants a tracer takes, from one
/// pair of readings of both clocks made when the request began.
///
/// The continuous clock does not jump when the wall clock is set, so the spans of one request keep their order and
/// lengths; each request takes a new pair, so a wall clock that was set meanwhile is followed from the next request.
struct SpanClock: Sendable {
    /// The continuous clock's reading.
    let continuous: ContinuousClock.Instant
    /// The wall clock's reading at the same moment, in nanoseconds since 1970.
    let wall: UInt64

    /// Reads both clocks now.
    init() {
        self.init(continuous: .now, wall: DefaultTracerClock.now.nanosecondsSinceEpoch)
    }

    /// A pair of readings.
    init(continuous: ContinuousClock.Instant, wall: UInt64) {
        self.continuous = continuous
        self.wall = wall
    }

    /// The wall-clock instant of a continuous-clock instant, between 1970 and the largest instant a tracer takes.
    func instant(of instant: ContinuousClock.Instant) -> DefaultTracerClock.Instant {
        let (seconds, attoseconds) = continuous.duration(to: instant).components
        // No two readings of a clock are 292 years apart; the clamp keeps the product in range all the same.
        let limit = Int64.max / 1_000_000_000 - 1
        let offset = min(max(seconds, -limit), limit) * 1_000_000_000 + attoseconds / 1_000_000_000
        let nanoseconds: UInt64
        if offset >= 0 {
            let (sum, overflow) = wall.addingReportingOverflow(offset.magnitude)
            nanoseconds = overflow ? .max : sum
        } else {
            nanoseconds = offset.magnitude > wall ? 0 : wall - offset.magnitude
        }
        return DefaultTracerClock.Instant(nanosecondsSinceEpoch: nanoseconds)
    }
}
