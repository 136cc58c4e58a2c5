/// How long each stage of one request took, and how many bytes it moved.
///
/// ``APIClient/response(for:)`` returns one with every response. Times are measured with `ContinuousClock`.
public struct PipelineMetrics: Sendable, Hashable {
    /// Time spent building the `URLRequest`.
    public var build: Duration = .zero
    /// Time from handing the request to the performer until its response was complete; for a streamed response,
    /// until its head arrived.
    public var transport: Duration = .zero
    /// For a streamed response, the time from handing the request to the performer until the first byte of the body
    /// arrived; `nil` for a buffered response, or a streamed one that had no body.
    public var timeToFirstByte: Duration?
    /// For a streamed response, the time from its head to the end of its body, however it ended; `nil` for a
    /// buffered response, whose body is in ``transport``.
    public var streamedBody: Duration?
    /// Time spent deserializing the body; zero when the body was not deserialized.
    public var deserialize: Duration = .zero
    /// Time spent in the parser and the request's `parse`; zero when the body was not parsed.
    public var parse: Duration = .zero
    /// Bytes in the request body.
    public var requestBodyBytes = 0
    /// Bytes in the response body; for a streamed response, the bytes read until it ended.
    public var responseBodyBytes = 0

    /// Creates empty metrics.
    public init() {}

    /// The sum of the stage times, a streamed body's included.
    public var total: Duration { build + transport + (streamedBody ?? .zero) + deserialize + parse }
}

extension PipelineMetrics: CustomStringConvertible {
    /// The stage times on one line, such as `build 4µs, transport 1.2ms, deserialize 30µs, parse 22µs`; for a
    /// streamed response, `build 4µs, transport 1.2ms, first byte 1.3ms, body 2.50s, deserialize 0ns, parse 0ns`.
    public var description: String {
        var stages = [("build", build), ("transport", transport)]
        if let timeToFirstByte {
            stages.append(("first byte", timeToFirstByte))
        }
        if let streamedBody {
            stages.append(("body", streamedBody))
        }
        stages += [("deserialize", deserialize), ("parse", parse)]
        return stages.map { "\($0.0) \(PipelineMetrics.format($0.1))" }.joined(separator: ", ")
    }

    package static func format(_ duration: Duration) -> String {
        let nanoseconds = duration.seconds * 1e9
        switch nanoseconds {
        case ..<1_000: return "\(Int(nanoseconds))ns"
        case ..<1_000_000: return String(format: "%.1fµs", nanoseconds / 1e3)
        case ..<1_000_000_000: return String(format: "%.2fms", nanoseconds / 1e6)
        default: return String(format: "%.2fs", nanoseconds / 1e9)
        }
    }
}
