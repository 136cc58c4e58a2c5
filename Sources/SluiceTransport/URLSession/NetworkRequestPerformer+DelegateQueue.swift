import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking

extension NetworkRequestPerformer {
    /// The queue a performer's own session calls its delegate on, on Linux: serial, as URLSession's own would be, and
    /// holding back whoever adds a call while `limit` calls wait to run.
    ///
    /// FoundationNetworking hands every piece of a body to the delegate through the delegate queue, from the thread
    /// libcurl runs on, and never waits: libcurl inflating a compressed body queued a gibibyte before the delegate
    /// saw the first megabyte and could cancel the transfer. Waiting here makes libcurl's thread wait for the
    /// delegate instead, so what is queued stays under `limit` pieces (libcurl writes at most 16 KiB at a time).
    ///
    /// It is safe because no delegate call waits for libcurl's thread: FoundationNetworking's completion handlers
    /// dispatch to it asynchronously, and the performer's delegate cancels a task from another thread, since
    /// `URLSessionTask.cancel()` waits for that queue. A call added from the queue's own thread never waits, so the
    /// queue cannot wait on itself.
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        /// One for each call that may wait to run.
        private let slots: DispatchSemaphore

        /// Creates a queue.
        ///
        /// - Parameter limit: The most calls that wait to run before whoever adds one waits.
        init(limit: Int) {
            slots = DispatchSemaphore(value: limit)
            super.init()
            maxConcurrentOperationCount = 1
            name = "Sluice.NetworkRequestPerformer.delegate"
        }

        override func addOperation(_ operation: Operation) {
            let waits = OperationQueue.current !== self
            if waits {
                slots.wait()
            }
            let completion = operation.completionBlock
            operation.completionBlock = { [slots] in
                completion?()
                if waits {
                    slots.signal()
                }
            }
            super.addOperation(operation)
        }
    }
}
#endif
