extension JSON {
    /// The members of a JSON object: key and value pairs in document order.
    ///
    /// A view into the document: iterating it reads the members in place, and ``subscript(_:)-(String)`` finds a key by
    /// comparing bytes, without building a dictionary. A key that appears more than once is kept each time: iteration,
    /// ``count`` and ``keys`` include every occurrence, in document order, while the subscript returns the first
    /// value, as ``JSONDocumentDecoder`` and Foundation's `JSONDecoder` decode it.
    public struct Members: Collection, Sendable {
        /// A position among the members.
        public typealias Index = ContainerIndex

        let storage: JSONStorage
        let entry: Int

        /// The position of the first member.
        public var startIndex: Index { Index(entry: entry + 1) }

        /// The position after the last member.
        public var endIndex: Index { Index(entry: storage.next(entry)) }

        /// The member at a position.
        ///
        /// - Parameter position: A valid position among the members.
        public subscript(position: Index) -> (key: String, value: JSON) {
            (storage.string(at: position.entry), JSON(storage: storage, entry: position.entry + 1))
        }

        /// The position after a position.
        ///
        /// - Parameter index: A valid position before ``endIndex``.
        /// - Returns: The next position.
        public func index(after index: Index) -> Index {
            Index(entry: storage.next(index.entry + 1))
        }

        /// The value of the first member with a key, or `nil`.
        ///
        /// - Parameter key: The key to find.
        public subscript(key: String) -> JSON? {
            var key = key
            return key.withUTF8 { keyBytes in
                var keyEntry = entry + 1
                let end = storage.next(entry)
                while keyEntry < end {
                    if storage.stringEquals(keyEntry, keyBytes) {
                        return JSON(storage: storage, entry: keyEntry + 1)
                    }
                    keyEntry = storage.next(keyEntry + 1)
                }
                return nil
            }
        }

        /// The number of members, a repeated key counted each time.
        public var count: Int { storage.containerCount(entry) }

        /// The keys, in document order, a repeated key listed each time.
        public var keys: [String] {
            map(\.key)
        }
    }
}
