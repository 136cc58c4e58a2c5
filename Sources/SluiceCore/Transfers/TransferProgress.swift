/// How far a transfer has come: the bytes so far and, when known, the bytes in all.
///
/// A ``Download`` reports one in its ``Download/progress`` each time bytes reach the file.
///
/// ```swift
/// for await progress in download.progress {
///     if let fraction = progress.fractionCompleted {
///         print("\(Int(fraction * 100))%")
///     }
/// }
/// ```
public struct TransferProgress: Sendable, Hashable {
    /// The bytes transferred so far; for a resumed download, the bytes an earlier attempt left included.
    public var bytesTransferred: Int64

    /// The bytes the transfer holds in all, when the server said so; `nil` when it did not.
    public var expectedBytes: Int64?

    /// Creates a progress report.
    ///
    /// - Parameters:
    ///   - bytesTransferred: The bytes transferred so far.
    ///   - expectedBytes: The bytes in all, when known.
    public init(bytesTransferred: Int64, expectedBytes: Int64?) {
        self.bytesTransferred = bytesTransferred
        self.expectedBytes = expectedBytes
    }

    /// The part done, from 0 to 1, when the total is known; `nil` otherwise.
    ///
    /// An empty transfer is complete: its fraction is 1.
    public var fractionCompleted: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(bytesTransferred) / Double(expectedBytes))
    }
}
