import Foundation

/// Runs long synchronous work on a thread of its own, holding none of the cooperative pool's threads, one per core:
/// under a sanitizer, seconds of such work on two of them held up every test that waited for a thread meanwhile, past
/// its timeouts.
///
/// - Parameter work: The work.
/// - Returns: What the work returns.
/// - Throws: What the work throws.
public func offThePool<Value: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> Value
) async throws(Failure) -> Value {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
        Thread.detachNewThread {
            continuation.resume(returning: Result { () throws(Failure) in try work() })
        }
    }
    return try result.get()
}
