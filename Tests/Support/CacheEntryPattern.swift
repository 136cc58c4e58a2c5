public import Foundation

/// The entries the disk cache's crash test writes from a child process and checks after killing it: each index has
/// its own URL and a body whose size and bytes follow from the index, so that a served body is checked whole.
public enum CacheEntryPattern {
    /// The URL of entry `index`.
    ///
    /// - Parameter index: The entry's number.
    /// - Returns: The URL.
    public static func url(_ index: Int) -> URL {
        URL(fileURLWithPath: "/entry/\(index)").absoluteURL
    }

    /// The body of entry `index`: from 1 byte to some 400 KB, so that some are written in many chunks.
    ///
    /// - Parameter index: The entry's number.
    /// - Returns: The body.
    public static func body(_ index: Int) -> Data {
        let size = 1 + (index &* 7_919) % 400_000
        return Data((0..<size).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) })
    }
}
