/// The in-memory store: entries behind one lock, bounded by bytes, the least recently used dropped first.
///
/// Recency is a counter stamped on each entry when it is stored or read; eviction drops the lowest stamps until the
/// total is down to seven eighths of the limit, so a read costs a dictionary lookup and a stamp, and the sort an
/// eviction takes is paid once for many stores.
final class MemoryCacheStorage: CacheStorage {
    private struct Stored {
        var entry: CacheEntry
        var body: Data
        var used: UInt64
        var cost: Int { body.count + CacheEntry.headCost(entry) }
    }

    private struct State {
        var keys: [String: [Stored]] = [:]
        var total = 0
        var clock: UInt64 = 0
    }

    private let state = Locked(State())
    /// The most bytes kept.
    let limit: Int

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The bytes held now, heads and bodies.
    var totalCost: Int { state.withLock { $0.total } }

    func entries(for key: String) -> [CacheEntry] {
        state.withLock { state in
            guard var variants = state.keys[key] else { return [] }
            state.clock += 1
            for index in variants.indices {
                variants[index].used = state.clock
            }
            state.keys[key] = variants
            return variants.map { stored in
                var entry = stored.entry
                entry.body = stored.body
                return entry
            }
        }
    }

    func body(of entry: CacheEntry) -> CachedBody? {
        if let body = entry.body {
            return .data(body)
        }
        return state.withLock { state in
            state.keys[entry.key]?.first { $0.entry.variantID == entry.variantID }.map { .data($0.body) }
        }
    }

    func writer(for entry: CacheEntry) -> (any CacheBodyWriter)? {
        guard CacheEntry.headCost(entry) + entry.bodySize <= limit else { return nil }
        return MemoryBodyWriter(entry: entry, storage: self)
    }

    /// Stores an entry with its body in place of the variant it matches, then evicts down to the limit.
    fileprivate func store(_ entry: CacheEntry, body: Data) {
        state.withLock { state in
            state.clock += 1
            var head = entry
            head.body = nil
            let stored = Stored(entry: head, body: body, used: state.clock)
            guard stored.cost <= limit else { return }
            var variants = state.keys[entry.key] ?? []
            if let index = variants.firstIndex(where: { $0.entry.variantID == entry.variantID }) {
                state.total -= variants[index].cost
                variants.remove(at: index)
            }
            variants.insert(stored, at: 0)
            state.keys[entry.key] = variants
            state.total += stored.cost
            evict(&state)
        }
    }

    /// Drops the least recently used entries once the total passes the limit, down to seven eighths of it, so that
    /// the sort an eviction takes is paid once for many stores.
    private func evict(_ state: inout State) {
        guard state.total > limit else { return }
        let target = limit - limit / 8
        var all = state.keys.values.flatMap { $0.map { ($0.entry.key, $0.entry.variantID, $0.used, $0.cost) } }
        all.sort { $0.2 < $1.2 }
        for (key, variantID, _, cost) in all {
            guard state.total > target else { break }
            state.keys[key]?.removeAll { $0.entry.variantID == variantID }
            if state.keys[key]?.isEmpty == true {
                state.keys[key] = nil
            }
            state.total -= cost
        }
    }

    func updateHead(_ entry: CacheEntry) {
        state.withLock { state in
            guard let index = state.keys[entry.key]?.firstIndex(where: { $0.entry.variantID == entry.variantID }),
                var stored = state.keys[entry.key]?[index]
            else { return }
            state.total -= stored.cost
            stored.entry = entry
            stored.entry.body = nil
            stored.entry.bodySize = stored.body.count
            state.total += stored.cost
            state.keys[entry.key]?[index] = stored
        }
    }

    func removeEntries(for key: String) {
        state.withLock { state in
            for stored in state.keys.removeValue(forKey: key) ?? [] {
                state.total -= stored.cost
            }
        }
    }

    func removeAll() {
        state.withLock { state in
            state.keys = [:]
            state.total = 0
        }
    }
}

/// Gathers a body in memory until it commits into the store.
private final class MemoryBodyWriter: CacheBodyWriter {
    private let entry: CacheEntry
    private let storage: MemoryCacheStorage
    private let body = Locked(Data())

    init(entry: CacheEntry, storage: MemoryCacheStorage) {
        self.entry = entry
        self.storage = storage
    }

    func write(_ chunk: Data) throws {
        body.withLock { $0.append(chunk) }
    }

    func commit() throws {
        var entry = entry
        let data = body.withLock { $0 }
        entry.bodySize = data.count
        storage.store(entry, body: data)
    }

    func discard() {
        body.withLock { $0 = Data() }
    }
}

extension CacheEntry {
    /// What a stored head costs against a store's limit, roughly: its fields and key in bytes.
    static func headCost(_ entry: CacheEntry) -> Int {
        entry.headers.fields.reduce(entry.key.utf8.count + 64) { $0 + $1.name.name.utf8.count + $1.value.utf8.count }
    }
}
