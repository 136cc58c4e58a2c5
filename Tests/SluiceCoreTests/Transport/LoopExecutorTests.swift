import Foundation
import SluiceTesting
import Testing

@testable import SluiceTransport

/// Tasks that prefer ``SocketRequestPerformer/loopExecutor()`` run on one of the transport's event loops, and their
/// requests are written, answered and handed back there; cancelling one is tested with the pool's own cancellation
/// test, in ``SocketRequestPerformerTests``.
@Suite struct LoopExecutorTests {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer()
    }

    /// The loop whose thread is calling, if any, read where async code may not read the current thread.
    static func currentLoop() -> ObjectIdentifier? {
        EventLoop.current.map(ObjectIdentifier.init)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test(arguments: TransportKind.socketCases)
    func aTaskOnALoopIsAnsweredOnThatLoopsThread(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/hello", response: LoopbackServer.Response(body: Data("hello".utf8)))
        let performer = kind.makeSocketPerformer()
        let loops = try await withTaskExecutorPreference(SocketRequestPerformer.loopExecutor()) {
            var loops = [Self.currentLoop()]
            for _ in 0..<20 {
                let response = try await performer.perform(URLRequest(url: origin.url("/hello")))
                #expect(response.body == Data("hello".utf8))
                loops.append(Self.currentLoop())
            }
            return loops
        }
        #expect(loops.count == 21)
        #expect(loops.allSatisfy { $0 != nil })
        #expect(Set(loops).count == 1)
        #expect(performer.openConnections == 1)
    }

    /// More tasks than connections, on every loop: they wait for a connection without holding a loop's thread.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    @Test(arguments: TransportKind.socketCases)
    func tasksOnTheLoopsShareTheirConnections(_ kind: TransportKind) async throws {
        let origin = try await kind.origin(of: server)
        server.route("/n", response: LoopbackServer.Response(body: Data("n".utf8)))
        let performer = kind.makeSocketPerformer(configuration: .init(maximumConnectionsPerOrigin: 3))
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask(executorPreference: SocketRequestPerformer.loopExecutor()) {
                    var answered = 0
                    for _ in 0..<25 {
                        let response = try await performer.perform(URLRequest(url: origin.url("/n")))
                        answered += response.body == Data("n".utf8) ? 1 : 0
                    }
                    return answered
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 400)
        #expect(performer.openConnections <= 3)
    }
}

extension Task where Failure == any Error {
    /// Starts a task, on one of the transport's loops when asked and the platform has task executors (macOS 15,
    /// iOS 18 and later on Apple platforms; always on Linux), else as an ordinary task.
    static func starting(
        onALoop: Bool,
        _ operation: @escaping @Sendable () async throws -> Success
    ) -> Task {
        if onALoop, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            return Task(executorPreference: SocketRequestPerformer.loopExecutor(), operation: operation)
        }
        return Task(operation: operation)
    }
}
