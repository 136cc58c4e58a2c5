// open, write, ftruncate, fsync, flock, rename and strerror come from the C library: Darwin on Apple platforms, Glibc on
// Linux. Foundation's FileHandle would do, but reports its failures in words that differ between platforms.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A download's partial file, written chunk by chunk through its descriptor, then moved into place.
///
/// Not `Sendable`: one download's task owns it.
final class PartialFile {
    /// The file.
    let url: URL
    private var descriptor: Int32

    /// Opens the file for writing, creating it when it does not exist and keeping what it holds.
    init(opening url: URL) throws(FileFailure) {
        self.url = url
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileFailure("create", url) }
    }

    /// Takes an exclusive advisory lock on the file (`flock`), held until its descriptor is closed, so that another
    /// process can tell a file still being written from one its writer left behind.
    func lockExclusively() throws(FileFailure) {
        guard flock(descriptor, LOCK_EX) == 0 else { throw FileFailure("lock", url) }
    }

    /// Moves to the end of the file, for the next write, and returns its size.
    func seekToEnd() throws(FileFailure) -> Int64 {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { throw FileFailure("read the size of", url) }
        return Int64(end)
    }

    /// Empties the file, for a download that starts over.
    func truncateToEmpty() throws(FileFailure) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw FileFailure("empty", url)
        }
    }

    /// Writes bytes at the end of what was written.
    func append(_ data: Data) throws(FileFailure) {
        let failure = data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var done = 0
            while done < buffer.count {
                let written = write(descriptor, base + done, buffer.count - done)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return nil
        }
        if let failure {
            throw FileFailure("write to", url, code: failure)
        }
    }

    /// Waits until what was written is on the disk, so that the file moved into place is whole after a crash.
    func synchronize() throws(FileFailure) {
        guard fsync(descriptor) == 0 else { throw FileFailure("write to", url) }
    }

    /// Closes the descriptor; later calls do nothing.
    func closeDescriptor() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Renames a file onto another in one step, replacing it: readers of `destination` see the old file or the
    /// new one, never a part of either.
    static func move(_ source: URL, to destination: URL) throws(FileFailure) {
        guard rename(source.path, destination.path) == 0 else {
            throw FileFailure("move \(source.path) to", destination)
        }
    }

    /// Removes a file, if it exists.
    static func remove(_ url: URL) {
        unlink(url.path)
    }

    deinit {
        closeDescriptor()
    }
}

/// A file operation that failed, with the system's error number.
struct FileFailure: Error, Sendable {
    /// What was being done, such as `write to`.
    var action: String
    /// The file's path.
    var path: String
    /// The system's error number.
    var code: Int32

    init(_ action: String, _ url: URL, code: Int32 = errno) {
        self.action = action
        self.path = url.path
        self.code = code
    }

    /// The failure in words: `cannot write to /tmp/file.part: No space left on device`.
    var message: String {
        "cannot \(action) \(path): \(String(cString: strerror(code)))"
    }

    /// The error number as a `POSIXError`, when it names one.
    var posixError: POSIXError? {
        POSIXErrorCode(rawValue: code).map { POSIXError($0) }
    }
}
