// The C library provides strerror; it is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The one error SluiceTesting's doubles throw: a stub asked for more than it was given, stubs not used as expected,
/// a request no recorded fixture answers, or a loopback server the system would not set up.
///
/// Its ``description`` says what happened and where; ``kind`` tells the cases apart.
///
/// ```text
/// 2 stubs were not used as expected:
///   - any GetProfile: expected 2 calls, got 1
///   - any DeleteProfile: expected at least 1 call, got 0
/// ```
public struct SluiceTestingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which double failed, and how.
    public enum Kind: Sendable, Equatable {
        /// A ``StubPerformer`` was asked for a response it was not given, such as more requests than canned
        /// responses, or a plain request to a stub that answers WebSocket handshakes only.
        case unstubbedRequest
        /// ``MockClient/verify()`` found stubs that were not used as expected: one line per stub.
        case unmetExpectations([String])
        /// A ``ReplayingPerformer`` has no fixture for a request, or cannot read one.
        case missingFixture
        /// The system refused a call a ``LoopbackServer`` needs, such as `bind` or `pthread_create`, with this
        /// `errno` value.
        case systemCall(String, errno: Int32)
    }

    /// Which double failed, and how.
    public let kind: Kind

    /// What went wrong, naming the request, the stubs, the fixture or the system call.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The error of a system call that failed, with the C library's text for `code`:
    /// `LoopbackServer: bind failed: Address already in use (errno 98)`.
    ///
    /// - Parameters:
    ///   - operation: The system call that failed.
    ///   - code: The `errno` value it reported.
    init(_ operation: String, errno code: Int32) {
        let reason = strerror(code).map { String(cString: $0) } ?? "unknown error"
        self.init(.systemCall(operation, errno: code), "LoopbackServer: \(operation) failed: \(reason) (errno \(code))")
    }

    /// The error of stubs that were not used as expected: the failures, one per line, under a headline.
    ///
    /// - Parameter failures: One line per stub: what it matches, what was expected and what happened.
    init(unmetExpectations failures: [String]) {
        self.init(
            .unmetExpectations(failures),
            "\(failures.count) \(failures.count == 1 ? "stub was" : "stubs were") not used as expected:\n"
                + failures.map { "  - \($0)" }.joined(separator: "\n")
        )
    }
}
