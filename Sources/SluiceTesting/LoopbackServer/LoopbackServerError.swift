// The C library provides strerror; it is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The error ``LoopbackServer/init(requestLogLimit:)`` throws when the operating system refuses to set up the listening socket.
public struct LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed, such as `bind` or `listen`.
    public let operation: String

    /// The `errno` value the system call reported.
    public let code: Int32

    /// A readable explanation naming the call and the error, such as
    /// `LoopbackServer: bind failed: Address already in use (errno 98)`.
    public let message: String

    /// Creates an error for a failed system call, reading the text for `code` from the C library.
    ///
    /// - Parameters:
    ///   - operation: The system call that failed.
    ///   - code: The `errno` value it reported.
    init(_ operation: String, errno code: Int32) {
        self.operation = operation
        self.code = code
        let reason = strerror(code).map { String(cString: $0) } ?? "unknown error"
        self.message = "LoopbackServer: \(operation) failed: \(reason) (errno \(code))"
    }

    /// The same text as ``message``.
    public var description: String {
        message
    }
}
