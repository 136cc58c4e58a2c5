import ClientFixtures
import Sluice

/// What the documentation snippets print, collected instead of written to the test output.
///
/// The snippets are compiled as the documentation shows them, `print` calls included. In this test target `print`
/// is the function below, which shadows the standard library's: a line goes to the lines a test collects with
/// ``collect(_:)``, and nowhere otherwise, so no test writes to the output.
enum SnippetOutput {
    /// The lines printed by the current task and its child tasks, while a test collects them.
    @TaskLocal static var lines: Locked<[String]>?

    /// Runs an operation and returns what it printed, a line per `print` call.
    ///
    /// - Parameter operation: The operation, usually a snippet.
    /// - Returns: The printed lines, without their terminators.
    static func collect(_ operation: () async throws -> Void) async rethrows -> [String] {
        let lines = Locked<[String]>([])
        try await $lines.withValue(lines) {
            try await operation()
        }
        return lines.withLock { $0 }
    }
}

/// The standard library's `print`, for the snippets of this target: the line goes to ``SnippetOutput``.
///
/// - Parameters:
///   - items: The values to print.
///   - separator: What is written between the values.
///   - terminator: What ends the line; not kept, since lines are collected one per call.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { String(describing: $0) }.joined(separator: separator)
    SnippetOutput.lines?.withLock { $0.append(line) }
}
