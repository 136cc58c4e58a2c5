import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The least a performer built on URLSession's delegate can do: a session whose delegate collects each task's body
/// and resumes its caller on completion, with nothing else (no timeouts, limits, redirect rules or progress).
///
/// It measures what URLSession itself charges for delivering a response through a delegate (the response, each
/// chunk and the completion are each a call on the delegate queue) rather than to a completion handler, as bare
/// `data(for:)` does: the floor under `NetworkRequestPerformer`, which needs the delegate for its idle timeout, its
/// body limit and its redirect rule.
struct DelegateFloor: Sendable {
    private let collector = Collector()
    private let session: URLSession

    /// Creates the session, with a delegate of its own.
    ///
    /// - Parameter configuration: The session configuration.
    init(configuration: URLSessionConfiguration) {
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
    }

    /// Sends a request and returns its body and response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The body and the response.
    /// - Throws: What URLSession reports.
    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        let task = session.dataTask(with: request)
        return try await withCheckedThrowingContinuation { continuation in
            collector.wait(for: task.taskIdentifier, continuation)
            task.resume()
        }
    }
}

/// The delegate: each task's body, and who waits for it.
///
/// `@unchecked Sendable`: its table is reached only under its lock.
private final class Collector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Waiting {
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>
        var body = Data()
    }

    private let lock = NSLock()
    private var waiting: [Int: Waiting] = [:]

    func wait(for task: Int, _ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        lock.withLock { waiting[task] = Waiting(continuation: continuation) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { waiting[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ waiting.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else if let response = task.response {
            entry.continuation.resume(returning: (entry.body, response))
        } else {
            entry.continuation.resume(throwing: URLError(.badServerResponse))
        }
    }
}
