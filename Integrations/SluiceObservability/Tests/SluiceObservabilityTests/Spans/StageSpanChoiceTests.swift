import Foundation
import InMemoryTracing
import Metrics
import SluiceCore
import SluiceObservability
import SluiceTesting
import Testing
import Tracing

/// Answers every request from a stub, and asks the instrumentation, while the request runs, whether it wants the
/// request's stages.
private final class StageQuestion: RequestPerformer {
    let instrumentation: ObservabilityInstrumentation
    private let answers = Locked<[Bool]>([])

    init(_ instrumentation: ObservabilityInstrumentation) {
        self.instrumentation = instrumentation
    }

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        if let scope = RequestContext.current?.instrumentationScope {
            let answer = instrumentation.recordsStages(of: scope)
            answers.withLock { $0.append(answer) }
        }
        return HTTPResponse(status: .ok)
    }

    var answer: Bool? { answers.withLock { $0.first } }
}

/// Whether the adapter asks for a request's stages: only where a stage's span would record.
@Suite struct StageSpanChoiceTests {
    /// The adapter's answer for a request, asked while the request's span runs.
    private func answer(of instrumentation: ObservabilityInstrumentation) async throws -> Bool {
        let question = StageQuestion(instrumentation)
        let client = APIClient(requestPerformer: question, instrumentation: instrumentation)
        let url = try #require(URL(string: "https://api.example.com/users/7"))
        _ = try await client.perform(Fetch(url: url))
        return try #require(question.answer as Bool?)
    }

    /// A tracer that records, with stage spans on, the default: the stages are wanted.
    @Test func asksForTheStagesOfARequestWhoseSpanRecords() async throws {
        let instrumentation = ObservabilityInstrumentation(
            tracer: InMemoryTracer(),
            metricsFactory: NOOPMetricsHandler.instance
        )
        #expect(try await answer(of: instrumentation))
    }

    /// Stage spans off, or a tracer whose spans record nothing: no stage is wanted.
    @Test(arguments: [false, true])
    func declinesTheStagesWithoutStageSpansOrWithATracerThatRecordsNothing(_ noOpTracer: Bool) async throws {
        let instrumentation = ObservabilityInstrumentation(
            tracer: noOpTracer ? NoOpTracer() : InMemoryTracer(),
            recordsStageSpans: noOpTracer,
            metricsFactory: NOOPMetricsHandler.instance
        )
        #expect(try await answer(of: instrumentation) == false)
    }
}
