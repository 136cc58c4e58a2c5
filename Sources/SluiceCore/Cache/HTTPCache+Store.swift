/// Where an ``HTTPCache`` keeps its entries: a variant per key and `Vary` selection, bounded by bytes.
///
/// Internal: ``HTTPCache/Store`` is the public face, with the in-memory and on-disk stores.
protocol CacheStorage: Sendable {
    /// The stored variants of a key, most recently stored first.
    func entries(for key: String) -> [CacheEntry]
    /// The body of a stored entry, or `nil` when it is gone.
    func body(of entry: CacheEntry) -> CachedBody?
    /// Starts storing `entry`: its body is written through the writer, and the entry replaces the variant it
    /// matches only when the writer commits. `nil` when the store cannot take it.
    func writer(for entry: CacheEntry) -> (any CacheBodyWriter)?
    /// Replaces the head of a stored variant (after a `304` or a `HEAD`), keeping its body.
    func updateHead(_ entry: CacheEntry)
    /// Removes every variant of `key`.
    func removeEntries(for key: String)
    /// Removes every entry.
    func removeAll()
}

/// Takes a stored body as it passes through, up to the entry limit.
protocol CacheBodyWriter: AnyObject, Sendable {
    /// Appends bytes to the body.
    func write(_ chunk: Data) throws
    /// Stores the entry with the body written: it replaces the variant it matches.
    func commit() throws
    /// Drops what was written; nothing is stored.
    func discard()
}

/// A stored body: in memory, or streamed from a file in chunks.
enum CachedBody: Sendable {
    /// The bytes.
    case data(Data)
    /// A body read from disk as it is consumed.
    case stream(HTTPBody)

    /// The body as an ``HTTPBody``.
    var httpBody: HTTPBody {
        switch self {
        case .data(let data): HTTPBody(data)
        case .stream(let body): body
        }
    }

    /// The whole body in memory.
    func collect() async throws -> Data {
        switch self {
        case .data(let data): data
        case .stream(let body): try await body.collect(upTo: .max)
        }
    }
}

extension HTTPCache {
    /// Where an ``HTTPCache`` keeps what it stores: in memory, or in a directory on disk.
    ///
    /// Both are bounded by bytes and drop the least recently used entries first.
    ///
    /// ```swift
    /// let cache = HTTPCache(store: try .disk(at: cachesDirectory.appending(path: "api"), limit: 50 << 20))
    /// ```
    public struct Store: Sendable {
        let storage: any CacheStorage

        /// A store in this process's memory.
        ///
        /// - Parameter limit: The most bytes of bodies and heads kept; 10 MiB by default.
        /// - Returns: The store.
        public static func memory(limit: Int = 10 << 20) -> HTTPCache.Store {
            HTTPCache.Store(storage: MemoryCacheStorage(limit: limit))
        }

        /// Removes every stored response.
        public func removeAll() {
            storage.removeAll()
        }
    }
}
