import Foundation
import InMemoryTracing
import Logging
import MetricsTestKit
import SluiceCore
import SluiceObservability
import Tracing

/// The tracer, metrics factory and loggers of one test, and the instrumentation that reports to them: each test has
/// its own, so that tests running at the same time share nothing (no global bootstrap).
struct Backends {
    let tracer = InMemoryTracer()
    let metrics = TestMetrics()
    /// The request's own records.
    let logs = CapturingLogHandler.Box()
    /// The pool's records.
    let poolLogs = CapturingLogHandler.Box()
    let instrumentation: ObservabilityInstrumentation

    /// Backends whose loggers take records from `level` up, each with a metadata provider that reads the span's context.
    init(level: Logger.Level = .debug, recordsStageSpans: Bool = true) {
        instrumentation = ObservabilityInstrumentation(
            tracer: tracer,
            recordsStageSpans: recordsStageSpans,
            metricsFactory: metrics,
            logger: .capturing("requests", into: logs, level: level, metadataProvider: .spanIDs),
            poolLogger: .capturing("pool", into: poolLogs, level: level, metadataProvider: .spanIDs)
        )
    }

    /// A client of the instrumentation on `performer`.
    func client(_ performer: any RequestPerformer) -> APIClient {
        APIClient(requestPerformer: performer, instrumentation: instrumentation)
    }

    /// The spans ended so far, in the order they ended.
    var spans: [FinishedInMemorySpan] { tracer.finishedSpans }

    /// The ended spans with a name.
    func spans(named name: String) -> [FinishedInMemorySpan] {
        spans.filter { $0.operationName == name }
    }

    /// The ended children of a span, in the order they ended.
    func children(of span: FinishedInMemorySpan) -> [FinishedInMemorySpan] {
        spans.filter { $0.parentSpanID == span.spanID }
    }

    /// The one ended span with a name under a parent.
    func child(named name: String, of span: FinishedInMemorySpan) -> FinishedInMemorySpan? {
        let found = children(of: span).filter { $0.operationName == name }
        return found.count == 1 ? found[0] : nil
    }
}

extension Logger.MetadataProvider {
    /// Adds the in-memory span id of `ServiceContext.current`, as a tracer's provider adds its trace and span ids.
    static let spanIDs = Logger.MetadataProvider {
        guard let span = ServiceContext.current?.inMemorySpanContext else { return [:] }
        return ["span-id": .string(span.spanID), "trace-id": .string(span.traceID)]
    }
}

extension FinishedInMemorySpan {
    /// The attribute under an OpenTelemetry name.
    subscript(_ name: String) -> SpanAttribute? {
        attributes.get(name)
    }

    /// The span's length in nanoseconds: negative for a span that ends before it starts, which a test reports
    /// rather than traps on.
    var nanoseconds: Int64 {
        Int64(clamping: endInstant.nanosecondsSinceEpoch) - Int64(clamping: startInstant.nanosecondsSinceEpoch)
    }

    /// Whether the span lies within another's, from start to end.
    func lies(within other: FinishedInMemorySpan) -> Bool {
        startInstant.nanosecondsSinceEpoch >= other.startInstant.nanosecondsSinceEpoch
            && endInstant.nanosecondsSinceEpoch <= other.endInstant.nanosecondsSinceEpoch
    }
}

extension SpanStatus.Code {
    /// The status an ended span had, or `nil` for none set.
    static func of(_ span: FinishedInMemorySpan) -> SpanStatus.Code? {
        span.status?.code
    }
}
