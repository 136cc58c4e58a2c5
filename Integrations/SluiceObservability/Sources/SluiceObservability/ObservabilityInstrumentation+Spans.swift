import Metrics
import SluiceCore
import Tracing

/// What an ``ObservabilityInstrumentation`` keeps in a scope's state: the scope's span, where its children find their
/// parent's context, tracer and clock, and for a request the meter of the active requests it moved up.
final class ScopeState: Sendable {
    /// The span, or `nil` for a scope that has none of its own (a stage when stage spans are off): its children then
    /// go under its parent's, whose context this holds.
    let span: (any Span)?
    /// The context of the span, or of the nearest span above the scope.
    let context: ServiceContext
    /// The tracer of every span of the request.
    let tracer: any Tracer
    /// The request's anchor from the scopes' clock to the tracer's.
    let clock: SpanClock
    /// How many of the scope's links the span was given when it started.
    let linksAtStart: Int
    /// For a request's scope, the active requests' meter, to move down by the same dimensions when it ends.
    let activeRequests: Meter?

    init(
        span: (any Span)?,
        context: ServiceContext,
        tracer: any Tracer,
        clock: SpanClock,
        linksAtStart: Int,
        activeRequests: Meter?
    ) {
        self.span = span
        self.context = context
        self.tracer = tracer
        self.clock = clock
        self.linksAtStart = linksAtStart
        self.activeRequests = activeRequests
    }
}

extension ObservabilityInstrumentation {
    /// Starts the span of a scope, under `ServiceContext.current` for a request, under its parent's span otherwise.
    func beginSpan(for scope: InstrumentationScope, activeRequests: Meter?) -> ScopeState {
        let above = scope.parent?.state as? ScopeState
        let tracer = above?.tracer ?? self.tracer ?? InstrumentationSystem.tracer
        let clock = above?.clock ?? SpanClock()
        let parentContext = above?.context ?? ServiceContext.current ?? .topLevel
        let isOwnSpan = scope.kind == .request || scope.kind == .attempt || recordsStageSpans
        guard isOwnSpan else {
            return ScopeState(
                span: nil,
                context: parentContext,
                tracer: tracer,
                clock: clock,
                linksAtStart: 0,
                activeRequests: activeRequests
            )
        }
        let span = tracer.startSpan(
            scope.name,
            context: parentContext,
            ofKind: scope.kind == .request || scope.kind == .attempt ? .client : .internal,
            at: clock.instant(of: scope.start)
        )
        // A span that records nothing (`NoOpTracer`'s, or one a sampler dropped) is given nothing but its end.
        let links = span.isRecording ? scope.links : []
        for link in links {
            addLink(to: link, on: span)
        }
        return ScopeState(
            span: span,
            context: span.context,
            tracer: tracer,
            clock: clock,
            linksAtStart: links.count,
            activeRequests: activeRequests
        )
    }

    /// Ends the span of a scope at its end, with its attributes, its status and the links it gained since it began.
    func endSpan(of scope: InstrumentationScope) {
        guard let state = scope.state as? ScopeState, let span = state.span else { return }
        if span.isRecording {
            let attributes = scope.attributes
            span.updateAttributes { spanAttributes in
                for attribute in attributes {
                    spanAttributes[attribute.key.name] = attribute.value.spanAttribute
                }
            }
            if scope.failed {
                span.setStatus(SpanStatus(code: .error))
            }
            for link in scope.links.dropFirst(state.linksAtStart) {
                addLink(to: link, on: span)
            }
        }
        span.end(at: state.clock.instant(of: scope.end ?? .now))
    }

    /// Links a span to the span of another scope, when that scope has one.
    private func addLink(to scope: InstrumentationScope, on span: any Span) {
        guard let linked = scope.state as? ScopeState else { return }
        span.addLink(SpanLink(context: linked.context, attributes: [:]))
    }
}

extension InstrumentationScope.Value {
    /// The value as a span's attribute.
    var spanAttribute: SpanAttribute {
        switch self {
        case .string(let text): .string(text)
        case .int(let number): .int64(Int64(number))
        case .bool(let truth): .bool(truth)
        }
    }
}
