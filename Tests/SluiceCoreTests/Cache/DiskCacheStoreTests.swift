import ClientFixtures
import Foundation
import SluiceTesting
import TestSupport
import Testing

@testable import SluiceCore

/// The disk store: entries that survive a reopening, bounds, damaged and foreign files, credentials, two writers on
/// one directory, and a writer killed at random points.
@Suite struct DiskCacheStoreTests {
    typealias F = CacheFixtures

    /// A fresh directory of its own under the system's temporary directory.
    private static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cache-\(UUID().uuidString)")
    }

    @Test func keepsEntriesAcrossReopening() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let large = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let origin = FakeOrigin { request, _ in
            HTTPResponse(
                status: .ok,
                headers: ["Cache-Control": "max-age=60", "ETag": "\"e\""],
                body: request.url?.path == "/large" ? large : Data("small".utf8)
            )
        }
        let first = CacheBench(origin, store: try .disk(at: directory))
        _ = try await first.get()
        _ = try await first.get(url: F.address("/large"))

        let reopened = CacheBench(origin, store: try .disk(at: directory))
        let small = try await reopened.get()
        #expect(small.cacheOutcome?.kind == .hit)
        #expect(small.body == Data("small".utf8))
        let streamed = try await reopened.performer.stream(F.request(url: F.address("/large")))
        #expect(streamed.cacheOutcome?.kind == .hit)
        #expect(try await streamed.body.collect(upTo: .max) == large)
        #expect(origin.count == 2)
    }

    @Test func staysWithinItsLimitDroppingTheLeastRecentlyUsed() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for store in [HTTPCache.Store.memory(limit: 3_500), try .disk(at: directory, limit: 3_500)] {
            let bench = CacheBench(
                FakeOrigin(["Cache-Control": "max-age=60"], body: String(repeating: "x", count: 800)),
                store: store
            )
            for path in ["/a", "/b", "/c"] {
                _ = try await bench.get(url: F.address(path))
            }
            // Using /a makes /b the least recently used, which the fourth entry pushes out.
            #expect(try await bench.get(url: F.address("/a")).cacheOutcome?.kind == .hit)
            _ = try await bench.get(url: F.address("/d"))
            #expect(try await bench.get(url: F.address("/a")).cacheOutcome?.kind == .hit)
            #expect(try await bench.get(url: F.address("/b")).cacheOutcome?.kind == .miss)
        }
    }

    @Test func ignoresDamagedFilesAndOtherVersions() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(FakeOrigin(["Cache-Control": "max-age=60"]), store: try .disk(at: directory))
        _ = try await bench.get()
        let storage = try DiskCacheStorage(directory: directory, limit: 1 << 20)
        let entry = try #require(storage.entries(for: F.url.absoluteString).first)
        let path = storage.root.appendingPathComponent("entries/\(DiskCacheStorage.digest(entry.key))")
            .appendingPathComponent(DiskCacheStorage.digest(entry.variantID))
        let whole = try Data(contentsOf: path)
        // Cut short, a byte changed in the head, and the same file under another version's directory.
        for damaged in [
            whole.prefix(whole.count - 3), whole.prefix(whole.count - 24) + Data([0xFF]) + whole.suffix(23),
        ] {
            try damaged.write(to: path)
            #expect(storage.entries(for: F.url.absoluteString).isEmpty)
            #expect(try await bench.get().cacheOutcome?.kind == .miss)
        }
        let other = directory.appendingPathComponent("v2/entries/x")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try whole.write(to: other.appendingPathComponent("y"))
        try FileManager.default.removeItem(at: storage.root)
        let fresh = CacheBench(FakeOrigin(["Cache-Control": "max-age=60"]), store: try .disk(at: directory))
        #expect(try await fresh.get().cacheOutcome?.kind == .miss)
    }

    @Test func saysWhyADirectoryCannotHoldTheStore() throws {
        let file = Self.directory()
        try Data("not a directory".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect {
            _ = try HTTPCache.Store.disk(at: file)
        } throws: { error in
            let message = (error as? SluiceError)?.message ?? ""
            return message.hasPrefix("cannot open the HTTP cache in \(file.path)/v1: ")
        }
    }

    @Test func rendersADamagedHead() throws {
        let head = F.entry(["ETag": "\"a\""]).encoded
        // Cut in the key's bytes, then in the last field: the value `"a"`, whose length word starts 11 bytes from the
        // end.
        for (kept, message) in [
            (8, "the stored head is damaged: cannot read its key at byte 0"),
            (head.count - 1, "the stored head is damaged: cannot read its header value at byte \(head.count - 11)"),
        ] {
            #expect {
                _ = try CacheEntry(decoding: head.prefix(kept))
            } throws: { error in
                String(describing: error) == message
            }
        }
    }

    @Test func rendersAHeadWithTooManyFields() throws {
        var head = F.entry([:]).encoded
        // The header count, the last word of a head without fields, claims far more than the limit.
        head.replaceSubrange((head.count - 8)..<head.count, with: [0, 0, 0, 1, 0, 0, 0, 0])
        #expect {
            _ = try CacheEntry(decoding: head)
        } throws: { error in
            String(describing: error)
                == "the stored head is damaged: cannot read its header count at byte \(head.count - 8)"
        }
        #expect(try CacheEntry(decoding: F.entry(["A": "b"]).encoded) == F.entry(["A": "b"]))
    }

    @Test func writesNoCredentials() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(FakeOrigin(["Cache-Control": "private, max-age=60"]), store: try .disk(at: directory))
        _ = try await bench.get(["Authorization": "Bearer s3cret-token", "Cookie": "session=c00kie"])
        #expect(
            try await bench.get(["Authorization": "Bearer s3cret-token", "Cookie": "session=c00kie"]).cacheOutcome?.kind
                == .hit
        )
        #expect(try await bench.get(["Authorization": "Bearer other"]).cacheOutcome?.kind == .miss)
        let files =
            FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        let contents = files.compactMap { try? Data(contentsOf: $0) }
        #expect(contents.count >= 2)
        for data in contents {
            #expect(data.range(of: Data("s3cret".utf8)) == nil)
            #expect(data.range(of: Data("c00kie".utf8)) == nil)
        }
    }

    @Test func sharesADirectoryBetweenTwoStores() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stores = [
            try DiskCacheStorage(directory: directory, limit: 64 << 20),
            try DiskCacheStorage(directory: directory, limit: 64 << 20),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, storage) in stores.enumerated() {
                group.addTask {
                    let performer = PatternPerformer().cached(in: HTTPCache(store: HTTPCache.Store(storage: storage)))
                    for index in 0..<20 {
                        // Both write the same entries, each in its own order.
                        let entry = number == 0 ? index : 19 - index
                        _ = try await performer.perform(URLRequest(url: CacheEntryPattern.url(entry)))
                    }
                }
            }
            try await group.waitForAll()
        }
        for index in 0..<20 {
            try await Self.expectWhole(index, in: stores[1])
        }
    }

    /// A child process writes entries and is killed at a random point, again and again; each time, the reopened store
    /// serves only whole entries, leaves no temporary file behind, and takes new entries.
    @Test func survivesAWriterKilledAtRandomPoints() async throws {
        let helper = try #require(Self.helper, "the CacheWriterHelper executable was not found beside the tests")
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SplitMix64(seed: 28)
        var next = 0
        for _ in 0..<6 {
            // Killed after a random number of stored entries, while it writes the next one; the helper runs and is
            // waited for on a thread of its own, not on the cooperative pool.
            let wanted = Int.random(in: 1...4, using: &random)
            let first = next
            let lines = try await offThePool {
                let (process, output) = try Self.launch(helper, in: directory, from: first)
                let lines = Self.readLines(from: output, until: wanted)
                process.forceKill()
                process.waitUntilExit()
                return lines
            }
            #expect(lines >= wanted, "the helper ended before it stored \(wanted) entries")
            next += lines + 2

            let storage = try DiskCacheStorage(directory: directory, limit: 8 << 20)
            let leftover = try FileManager.default.contentsOfDirectory(
                atPath: storage.root.appendingPathComponent("tmp").path
            )
            #expect(leftover.isEmpty)
            for index in 0..<next {
                try await Self.expectWhole(index, in: storage, required: false)
            }
        }
    }

    /// Two child processes write the same entries into one directory at once, until both have stored eight; every
    /// entry is then whole, whichever process wrote it last.
    @Test func sharesADirectoryBetweenTwoProcesses() async throws {
        let helper = try #require(Self.helper, "the CacheWriterHelper executable was not found beside the tests")
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await offThePool {
            let writers = try (0..<2).map { _ in try Self.launch(helper, in: directory, from: 0) }
            for (_, output) in writers {
                _ = Self.readLines(from: output, until: 8)
            }
            for (process, _) in writers {
                process.forceKill()
                process.waitUntilExit()
            }
        }
        let storage = try DiskCacheStorage(directory: directory, limit: 8 << 20)
        // Entries 0 to 7 weigh some 220 KB: far under the helper's 8 MiB limit, so none was evicted.
        for index in 0..<8 {
            try await Self.expectWhole(index, in: storage)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: storage.root.appendingPathComponent("tmp").path) == []
        )
    }

    /// Starts the helper writing entries from `first` into `directory`.
    private static func launch(_ helper: URL, in directory: URL, from first: Int) throws -> (ChildProcess, Pipe) {
        let output = Pipe()
        let process = try ChildProcess(helper, [directory.path, String(first)], standardOutput: .pipe(output))
        return (process, output)
    }

    /// Reads the helper's output until it has printed `count` lines, or ended; returns the lines read.
    private static func readLines(from output: Pipe, until count: Int) -> Int {
        var lines = 0
        while lines < count {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            lines += data.filter { $0 == 0x0A }.count
        }
        return lines
    }

    /// Checks that entry `index` is stored whole, or (when not `required`) not at all.
    private static func expectWhole(_ index: Int, in storage: DiskCacheStorage, required: Bool = true) async throws {
        let key = CacheEntryPattern.url(index).absoluteString
        let entries = storage.entries(for: key)
        if required {
            #expect(entries.count == 1, "entry \(index) is missing")
        }
        for entry in entries {
            let body = try #require(storage.body(of: entry), "entry \(index) has a head and no body")
            #expect(try await body.collect() == CacheEntryPattern.body(index), "entry \(index) is damaged")
        }
    }

    /// The helper executable, built beside the test bundle.
    private static let helper: URL? = {
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            bundle.deletingLastPathComponent().appendingPathComponent("CacheWriterHelper"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("CacheWriterHelper"),
            Bundle.main.bundleURL.appendingPathComponent("CacheWriterHelper"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()
}

/// An origin answering every URL with the pattern entry its last path component names.
private struct PatternPerformer: RequestPerformer {
    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let index = Int(request.url?.lastPathComponent ?? "") ?? 0
        return HTTPResponse(
            status: .ok,
            headers: ["Cache-Control": "max-age=3600"],
            body: CacheEntryPattern.body(index)
        )
    }
}
