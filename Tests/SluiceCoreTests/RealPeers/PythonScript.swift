import ClientFixtures
// A Python script run as a child process from a temporary directory of its own, which reports on its first line of
// output the port it listens on: the way every Python peer of the tests starts.
import Foundation
import TestSupport
import Testing

/// A running Python script and the first line it wrote.
///
/// The script is written to a new directory under `/tmp` and run with the arguments given; its first line of output
/// is read before ``start(_:named:arguments:)`` returns (a port, or why it could not start). The process is stopped and
/// the directory removed when this is released.
final class PythonScript: Sendable {
    /// The script's first line of output, without its line feed.
    let firstLine: String
    /// The directory the script was written to, where it may keep files.
    let directory: URL
    private let process: ChildProcess

    /// The Python to run, from `SLUICE_PYTHON`.
    static let python: URL? = ProcessInfo.processInfo.environment["SLUICE_PYTHON"].map {
        URL(fileURLWithPath: $0)
    }

    /// Whether `SLUICE_PYTHON` names an executable; when it does not and the peers are required, the test fails.
    ///
    /// - Throws: A failed requirement when the peers are required and there is no Python.
    static func isAvailable() throws -> Bool {
        guard let python, FileManager.default.isExecutableFile(atPath: python.path) else {
            try #require(!NginxServer.isRequired, "SLUICE_REQUIRE_PEERS is set, but SLUICE_PYTHON is not")
            return false
        }
        return true
    }

    /// Writes a script and runs it, waiting for its first line: a blocking call, for a thread off the cooperative pool.
    ///
    /// - Parameters:
    ///   - script: The script's text.
    ///   - name: What the directory is named after, `sluice-<name>.XXXXXX`.
    ///   - arguments: The arguments after the script's path; `{directory}` in one stands for the directory.
    /// - Throws: ``PythonScriptError`` when there is no Python, the directory could not be made, or the script could
    ///   not start.
    init(_ script: String, named name: String, arguments: [String] = []) throws {
        guard let python = Self.python else {
            throw PythonScriptError(description: "SLUICE_PYTHON is not set")
        }
        var template = Array("/tmp/sluice-\(name).XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw PythonScriptError(description: "mkdtemp failed: errno \(errno)")
        }
        let directory = URL(fileURLWithPath: String(cString: created), isDirectory: true)
        let path = directory.appendingPathComponent("server.py")
        try Data(script.utf8).write(to: path)
        let output = Pipe()
        let process = try ChildProcess(
            python,
            [path.path] + arguments.map { $0.replacingOccurrences(of: "{directory}", with: directory.path) },
            standardOutput: .pipe(output)
        )
        // Its end of the pipe closes if it dies, which ends the line.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
            line.append(first)
        }
        self.firstLine = String(decoding: line, as: UTF8.self)
        self.directory = directory
        self.process = process
    }

    /// The port the first line reports, or `nil` when it reports something else.
    var port: Int? { Int(firstLine) }

    deinit {
        let (process, directory) = (self.process, self.directory)
        Thread.detachNewThread {
            process.terminate()
            if !process.waitUntilExit(timeout: .seconds(10)) {
                process.forceKill()
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

extension PythonScript {
    /// Starts a server script that reports its port on its first line, or `missing <library>` when the Python module
    /// it needs is not installed.
    ///
    /// - Parameters:
    ///   - script: The script's text.
    ///   - name: What its directory is named after.
    ///   - library: The module it reports missing.
    ///   - arguments: The arguments after the script's path.
    /// - Returns: The running script, or `nil` when Python or the module is missing and the peers are not required.
    /// - Throws: A failed requirement when the peers are required and missing, or when the server did not start.
    static func startServer(
        _ script: String,
        named name: String,
        library: String,
        arguments: [String] = []
    ) async throws -> PythonScript? {
        guard try isAvailable() else { return nil }
        let started = try await offThePool { try PythonScript(script, named: name, arguments: arguments) }
        guard started.port != nil else {
            try #require(
                started.firstLine == "missing \(library)",
                "the \(name) server did not start: \(started.firstLine)"
            )
            try #require(
                !NginxServer.isRequired,
                "SLUICE_REQUIRE_PEERS is set, but Python's \(library) is not installed"
            )
            return nil
        }
        return started
    }
}

/// Why a Python script could not be started.
struct PythonScriptError: Error, CustomStringConvertible {
    let description: String
}
