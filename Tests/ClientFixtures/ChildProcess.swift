package import Foundation
import SluiceJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests run (nginx, openssl, socat, squid, gzip), started with `posix_spawn` and reaped on a thread of
/// its own.
///
/// Foundation's `Process` is not used: on Linux, to close the parent's descriptors in the child it lists
/// `/proc/self/fd` and copies each entry's name as a whole 256-byte field, which reads past the end of the directory
/// buffer when an entry sits at the end of a page. With the hundreds of sockets a full test run holds open, that
/// crashed the run in `Process.run()` ("Bad pointer dereference" in `memcpy`). Here the child closes every descriptor
/// from 3 up with one file action instead, and starts with no signal blocked, whatever the spawning thread blocks.
package final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream {
        /// `/dev/null`.
        case null
        /// An open file, shared with the child.
        case file(FileHandle)
        /// The child's end of a pipe; the parent's copy of that end is closed once the child has started, so that
        /// the other end sees the child's end of input or output.
        case pipe(Pipe)
    }

    /// The child's process identifier.
    package let processIdentifier: pid_t
    /// Fired once the child has exited and been reaped.
    package let exited: Signal
    private let status = Locked<Int32?>(nil)

    /// Starts a program.
    ///
    /// - Parameters:
    ///   - executable: The program.
    ///   - arguments: Its arguments, without its name.
    ///   - directory: The directory it starts in; this process's when `nil`.
    ///   - standardInput: Where its standard input comes from.
    ///   - standardOutput: Where its standard output goes.
    ///   - standardError: Where its standard error goes.
    /// - Throws: ``ChildProcessError`` when it could not be started.
    package init(
        _ executable: URL,
        _ arguments: [String],
        directory: URL? = nil,
        standardInput: Stream = .null,
        standardOutput: Stream = .null,
        standardError: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let streams =
            [(STDIN_FILENO, standardInput, true), (STDOUT_FILENO, standardOutput, false)]
            + [(STDERR_FILENO, standardError, false)]
        for (target, stream, isInput) in streams {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", isInput ? O_RDONLY : O_WRONLY, 0)
            case .file(let handle):
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            case .pipe(let pipe):
                let end = isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
            }
        }
        #if canImport(Glibc)
        // glibc 2.34 and later; Swift does not import these GNU extensions, so they are looked up.
        guard let closeFrom = Self.closeFrom, let changeDirectory = Self.changeDirectory else {
            throw ChildProcessError(description: "this C library lacks posix_spawn_file_actions_addclosefrom_np")
        }
        _ = closeFrom(&actions, 3)
        if let directory {
            _ = changeDirectory(&actions, directory.path)
        }
        #endif
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer {
            for argument in argv {
                free(argument)
            }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ChildProcessError(
                description: "\(executable.path) could not start: \(String(cString: strerror(result)))"
            )
        }
        processIdentifier = pid
        let child = pid
        var closed = Set<ObjectIdentifier>()
        for (_, stream, isInput) in streams {
            if case .pipe(let pipe) = stream, closed.insert(ObjectIdentifier(pipe)).inserted {
                try? (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
            }
        }
        let exited = Signal("\(executable.lastPathComponent) to exit")
        self.exited = exited
        let status = self.status
        Thread.detachNewThread {
            var code: Int32 = 0
            while waitpid(child, &code, 0) < 0 && errno == EINTR {}
            // The exit status, or 128 and the signal that ended it, as a shell reports them.
            let signal = code & 0x7f
            status.withLock { $0 = signal == 0 ? (code >> 8) & 0xff : 128 + signal }
            exited.fire()
        }
    }

    #if canImport(Glibc)
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np`: the child closes every descriptor from a number up.
    private static let closeFrom: CloseFrom? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0),
        "posix_spawn_file_actions_addclosefrom_np"
    )
    .map { unsafeBitCast($0, to: CloseFrom.self) }

    /// `posix_spawn_file_actions_addchdir_np`: the child changes its directory.
    private static let changeDirectory: ChangeDirectory? = dlsym(
        UnsafeMutableRawPointer(bitPattern: 0),
        "posix_spawn_file_actions_addchdir_np"
    ).map { unsafeBitCast($0, to: ChangeDirectory.self) }
    #endif

    /// Whether it has not exited yet.
    package var isRunning: Bool { status.withLock { $0 == nil } }

    /// Waits for a peer that tells its parent nothing when it is ready (nginx, socat, squid, microsocks): checks
    /// `isReady` every 10 ms while the process runs, for `limit` at most.
    ///
    /// - Parameters:
    ///   - limit: The longest wait.
    ///   - isReady: Whether the peer is ready: a pid file written, a line logged, a connection accepted.
    /// - Returns: Whether the peer was ready while the process still ran; `false` when it exited or the limit passed.
    package func waitUntilReady(within limit: Duration, _ isReady: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + limit
        while isRunning {
            if isReady() {
                return isRunning
            }
            guard ContinuousClock.now < deadline else { return false }
            usleep(10_000)
        }
        return false
    }

    /// Its exit status, or 128 and the signal that ended it; `nil` while it runs.
    package var terminationStatus: Int32? { status.withLock { $0 } }

    /// Asks it to end, with `SIGTERM`.
    package func terminate() {
        if isRunning {
            kill(processIdentifier, SIGTERM)
        }
    }

    /// Ends it at once, with `SIGKILL`.
    package func forceKill() {
        if isRunning {
            kill(processIdentifier, SIGKILL)
        }
    }

    /// Waits for it to exit.
    ///
    /// - Parameter timeout: How long to wait at most.
    /// - Returns: Whether it exited in time.
    @discardableResult
    package func waitUntilExit(timeout: Duration = .seconds(60)) -> Bool {
        (try? exited.block(timeout: timeout)) != nil
    }
}

/// Why a program could not be started.
package struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed.
    package let description: String
}
