// open, pread, flock, futimens, unlink and stat come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The disk store: one file per entry, written whole to a temporary file and renamed into place, so that a reader
/// sees a complete entry or none.
///
/// Layout, under the directory given: `v1/` (the format version: a directory of another version is never read),
/// holding `lock`, `tmp/` for entries being written, and `entries/<key digest>/<variant digest>`. The directory is
/// the index: a lookup lists the key's directory and reads the heads there, so two processes sharing it see each
/// other's entries, and nothing but the files needs to survive a crash. An entry file is
/// `magic, body, head, head length, head checksum, end magic`; a file whose size, magic or head does not add up (written by another
/// version, cut short by a crash after a rename on a file system that reorders, or a head damaged, which a checksum
/// finds) is never served and is removed.
///
/// A writer holds an exclusive `flock` on its temporary file until it renames or drops it; opening the store removes
/// the temporary files no live writer holds, which a killed writer left. Renames, removals and eviction run under an
/// exclusive `flock` on `lock`, which serialises them between threads and processes. Recency is the file's
/// modification time, set on every read; eviction removes the oldest files until the total is down to seven eighths of
/// the limit.
/// Credentials are not written: the request's `Authorization` and `Cookie` are kept only as digests.
final class DiskCacheStorage: CacheStorage {
    /// The directory of this format version.
    let root: URL
    /// The most bytes kept, files whole.
    let limit: Int
    private let entries: URL
    private let temporary: URL
    private let lockPath: String
    /// The bytes held as last counted, and added to by this process's commits; recounted when it passes the limit.
    private let total = Locked(0)

    /// The last recency stamp this process gave a file, so that the next is later even on a coarse clock.
    private let lastStamp = Locked(0.0)

    /// A modification time for a file just used: now, or just after the last one given.
    private func nextStamp() -> Double {
        lastStamp.withLock { last in
            last = max(Date().timeIntervalSince1970, last + 0.000_001)
            return last
        }
    }

    /// The name of this format version's directory and the magic numbers of its files.
    static let version = "v1"
    private static let magic = Array("SLUICE-CACHE-1\n\0".utf8)
    private static let endMagic = Array("SLC1-END".utf8)
    /// Bodies larger than this are streamed from the file rather than read at once.
    static let streamingThreshold = 256 * 1024

    /// Opens (or creates) a store in `directory`, removing what writers killed before they finished left behind.
    init(directory: URL, limit: Int) throws(SluiceError) {
        root = directory.appendingPathComponent(DiskCacheStorage.version, isDirectory: true)
        entries = root.appendingPathComponent("entries", isDirectory: true)
        temporary = root.appendingPathComponent("tmp", isDirectory: true)
        lockPath = root.appendingPathComponent("lock").path
        self.limit = max(0, limit)
        do {
            for directory in [entries, temporary] {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
        } catch {
            throw SluiceError(
                .transport,
                message: "cannot open the HTTP cache in \(root.path): \(SluiceError.describe(error))",
                underlyingError: error
            )
        }
        removeAbandonedWrites()
        withStoreLock { total.withLock { $0 = self.evict() } }
    }

    // MARK: - Reading

    func entries(for key: String) -> [CacheEntry] {
        let directory = entries.appendingPathComponent(DiskCacheStorage.digest(key), isDirectory: true)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.compactMap { name in
            let path = directory.appendingPathComponent(name).path
            guard let file = EntryFile(path: path), let entry = file.entry, entry.key == key else { return nil }
            file.touch(at: nextStamp())
            return entry
        }
    }

    func body(of entry: CacheEntry) -> CachedBody? {
        // The file read again, and its head compared, so that a body replaced by another writer since the lookup
        // is never served under the old head.
        guard let file = EntryFile(path: path(of: entry)), let stored = file.entry, stored == entry else { return nil }
        if entry.bodySize <= DiskCacheStorage.streamingThreshold {
            return file.read(count: entry.bodySize).map { .data($0) }
        }
        return .stream(HTTPBody(FileChunks(file: file, size: entry.bodySize), expectedLength: Int64(entry.bodySize)))
    }

    /// The path of an entry's file.
    private func path(of entry: CacheEntry) -> String {
        entries.appendingPathComponent(DiskCacheStorage.digest(entry.key), isDirectory: true)
            .appendingPathComponent(DiskCacheStorage.digest(entry.variantID)).path
    }

    // MARK: - Writing

    func writer(for entry: CacheEntry) -> (any CacheBodyWriter)? {
        guard entry.bodySize + CacheEntry.headCost(entry) <= limit else { return nil }
        let url = temporary.appendingPathComponent(UUID().uuidString + ".tmp")
        do {
            let file = try PartialFile(opening: url)
            try file.lockExclusively()
            try file.append(Data(DiskCacheStorage.magic))
            return DiskBodyWriter(entry: entry, file: file, storage: self)
        } catch {
            PartialFile.remove(url)
            return nil
        }
    }

    /// Finishes a written file with its head and renames it into place, then evicts down to the limit.
    fileprivate func commit(_ file: PartialFile, entry: CacheEntry) throws {
        let head = entry.encoded
        var tail = head
        let length = UInt32(head.count)
        tail += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> UInt32($0)) }
        let check = DiskCacheStorage.checksum(head)
        tail += stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: check >> UInt64($0)) }
        tail += DiskCacheStorage.endMagic
        try file.append(Data(tail))
        let size = DiskCacheStorage.magic.count + entry.bodySize + tail.count
        let destination = URL(fileURLWithPath: path(of: entry))
        try withStoreLock {
            try? FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try PartialFile.move(file.url, to: destination)
            EntryFile.stamp(destination.path, at: nextStamp())
            let over = total.withLock { total in
                total += size
                return total > limit
            }
            if over {
                total.withLock { $0 = self.evict() }
            }
        }
    }

    func updateHead(_ entry: CacheEntry) {
        guard let file = EntryFile(path: path(of: entry)), let stored = file.entry, stored.variantID == entry.variantID,
            let writer = writer(for: stored) as? DiskBodyWriter
        else { return }
        var offset = 0
        while offset < stored.bodySize {
            guard let chunk = file.read(from: offset, count: min(64 * 1024, stored.bodySize - offset)) else {
                writer.discard()
                return
            }
            try? writer.write(chunk)
            offset += chunk.count
        }
        var updated = entry
        updated.bodySize = stored.bodySize
        writer.replaceEntry(with: updated)
        try? writer.commit()
    }

    func removeEntries(for key: String) {
        let directory = entries.appendingPathComponent(DiskCacheStorage.digest(key), isDirectory: true)
        withStoreLock {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    func removeAll() {
        withStoreLock {
            try? FileManager.default.removeItem(at: entries)
            try? FileManager.default.createDirectory(at: entries, withIntermediateDirectories: true)
            total.withLock { $0 = 0 }
        }
    }

    // MARK: - Upkeep

    /// Runs `body` holding the store's lock, shared by every thread and process that opens the directory.
    private func withStoreLock<T>(_ body: () throws -> T) rethrows -> T {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
            while flock(descriptor, LOCK_EX) != 0, errno == EINTR {}
        }
        defer {
            if descriptor >= 0 { close(descriptor) }
        }
        return try body()
    }

    /// Removes the temporary files no writer holds: those left by a writer that was killed.
    private func removeAbandonedWrites() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names {
            let path = temporary.appendingPathComponent(name).path
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)
            }
            close(descriptor)
        }
    }

    /// Counts every entry file and removes the damaged ones, then the least recently used while the total passes the
    /// limit.
    ///
    /// Called under the store's lock; returns the total kept.
    private func evict() -> Int {
        var files: [(path: String, size: Int, used: Double)] = []
        let manager = FileManager.default
        for key in (try? manager.contentsOfDirectory(atPath: entries.path)) ?? [] {
            let directory = entries.appendingPathComponent(key).path
            let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
            if names.isEmpty {
                rmdir(directory)
            }
            for name in names {
                let path = directory + "/" + name
                guard let file = EntryFile(path: path), file.entry != nil else {
                    unlink(path)
                    continue
                }
                files.append((path, file.size, file.modified))
            }
        }
        var total = files.reduce(0) { $0 + $1.size }
        guard total > limit else { return total }
        // Down to seven eighths of the limit, so that the scan an eviction takes is paid once for many stores.
        let target = limit - limit / 8
        for file in files.sorted(by: { $0.used < $1.used }) {
            guard total > target else { break }
            unlink(file.path)
            total -= file.size
        }
        return total
    }

    /// A file name for a key or variant: its ``checksum(_:)`` in hexadecimal, the same in every process.
    ///
    /// Two names that collide are told apart by the head, which holds the key.
    static func digest(_ text: String) -> String {
        let digits = String(checksum(text.utf8), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// 64 bits of FNV-1a over bytes: the check of a stored head, and the file names of keys and variants.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
        return hash
    }

    /// An entry file, opened for reading: its size, and its head once the size and magic numbers check out.
    final class EntryFile: Sendable {
        private let descriptor: Int32
        let size: Int
        let modified: Double
        let entry: CacheEntry?

        init?(path: String) {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                close(descriptor)
                return nil
            }
            size = Int(status.st_size)
            #if canImport(Darwin)
            // Darwin names the modification time st_mtimespec, Glibc st_mtim.
            modified = Double(status.st_mtimespec.tv_sec) + Double(status.st_mtimespec.tv_nsec) / 1e9
            #else
            modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            #endif
            entry = EntryFile.readEntry(descriptor, size: size)
        }

        private static func readEntry(_ descriptor: Int32, size: Int) -> CacheEntry? {
            let magic = DiskCacheStorage.magic
            let end = DiskCacheStorage.endMagic
            let trailer = 4 + 8 + end.count
            guard size >= magic.count + trailer, let tail = pread(descriptor, at: size - trailer, count: trailer),
                Array(tail.suffix(end.count)) == end,
                let start = pread(descriptor, at: 0, count: magic.count), Array(start) == magic
            else { return nil }
            let length = tail.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            let check = tail.dropFirst(4).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let headStart = size - trailer - length
            guard length > 0, headStart >= magic.count, let head = pread(descriptor, at: headStart, count: length),
                DiskCacheStorage.checksum(head) == check, let entry = try? CacheEntry(decoding: head),
                entry.bodySize == headStart - magic.count
            else { return nil }
            return entry
        }

        /// Reads `count` bytes of the body from `offset`.
        func read(from offset: Int = 0, count: Int) -> Data? {
            EntryFile.pread(descriptor, at: DiskCacheStorage.magic.count + offset, count: count)
        }

        /// Marks the file as used at `stamp`, for eviction.
        func touch(at stamp: Double) {
            let times = EntryFile.times(stamp)
            _ = futimens(descriptor, times)
        }

        /// Sets the modification time of the file at `path` to `stamp`.
        static func stamp(_ path: String, at stamp: Double) {
            let times = EntryFile.times(stamp)
            _ = utimensat(AT_FDCWD, path, times, 0)
        }

        /// The access and modification times both set to `stamp`.
        private static func times(_ stamp: Double) -> [timespec] {
            let seconds = stamp.rounded(.down)
            let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((stamp - seconds) * 1e9))
            return [time, time]
        }

        private static func pread(_ descriptor: Int32, at offset: Int, count: Int) -> Data? {
            var data = Data(count: count)
            var done = 0
            let complete = data.withUnsafeMutableBytes { buffer -> Bool in
                guard let base = buffer.baseAddress else { return count == 0 }
                while done < count {
                    let read = systemRead(descriptor, base + done, count - done, off_t(offset + done))
                    if read < 0, errno == EINTR { continue }
                    guard read > 0 else { return false }
                    done += read
                }
                return true
            }
            return complete ? data : nil
        }

        deinit {
            close(descriptor)
        }
    }
}

/// Writes an entry's body to its temporary file as it passes through, and renames it into place on commit; dropped
/// unfinished, it removes the file.
final class DiskBodyWriter: CacheBodyWriter {
    private struct State {
        var entry: CacheEntry
        var file: PartialFile?
        var written = 0
    }

    private let state: Locked<State>
    private let storage: DiskCacheStorage

    fileprivate init(entry: CacheEntry, file: PartialFile, storage: DiskCacheStorage) {
        state = Locked(State(entry: entry, file: file))
        self.storage = storage
    }

    func write(_ chunk: Data) throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            try file.append(chunk)
            state.written += chunk.count
        }
    }

    /// Replaces the head the file will be committed with, keeping the body written.
    fileprivate func replaceEntry(with entry: CacheEntry) {
        state.withLock { $0.entry = entry }
    }

    func commit() throws {
        try state.withLock { state in
            guard let file = state.file else { return }
            state.file = nil
            var entry = state.entry
            entry.bodySize = state.written
            defer {
                file.closeDescriptor()
                PartialFile.remove(file.url)
            }
            try storage.commit(file, entry: entry)
        }
    }

    func discard() {
        let file = state.withLock { state in
            defer { state.file = nil }
            return state.file
        }
        guard let file else { return }
        file.closeDescriptor()
        PartialFile.remove(file.url)
    }

    deinit {
        discard()
    }
}

/// A body read from an entry file in chunks as it is consumed, so that a large stored body is never read whole.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let file: DiskCacheStorage.EntryFile
    let size: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(file: file, size: size)
    }

    struct Iterator: AsyncIteratorProtocol {
        let file: DiskCacheStorage.EntryFile
        let size: Int
        var offset = 0

        mutating func next() async throws -> Data? {
            guard offset < size else { return nil }
            guard let chunk = file.read(from: offset, count: Swift.min(64 * 1024, size - offset)) else {
                throw SluiceError(.transport, message: "the HTTP cache's stored body ended before its \(size) bytes")
            }
            offset += chunk.count
            return chunk
        }
    }
}

extension HTTPCache.Store {
    /// A store in a directory on disk, shared safely by several processes, that keeps what it holds across launches.
    ///
    /// Each entry is one file, written completely before it is renamed into place: a process killed at any point
    /// leaves no partial entry that is served, and its temporary files are removed when the store is next opened.
    /// Credentials the request carried are not written, only digests of them.
    ///
    /// - Parameters:
    ///   - directory: The directory; created when missing. The store keeps its files in a subdirectory named after
    ///     its format version, so the files of another version are never read.
    ///   - limit: The most bytes of entry files kept; 50 MiB by default.
    /// - Returns: The store.
    /// - Throws: ``SluiceError/Code/transport`` when the directory cannot be created.
    public static func disk(at directory: URL, limit: Int = 50 << 20) throws(SluiceError) -> HTTPCache.Store {
        HTTPCache.Store(storage: try DiskCacheStorage(directory: directory, limit: limit))
    }
}

/// The C library's `pread`, under a name the entry file's own `pread` does not hide.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: off_t) -> Int {
    pread(descriptor, buffer, count, offset)
}
