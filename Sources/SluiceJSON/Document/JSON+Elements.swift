extension JSON {
    /// The elements of a JSON array, in order.
    ///
    /// A view into the document: iterating it reads the elements in place. ``count`` is known without iterating;
    /// reaching the n-th element walks past the ones before it, so iterate rather than index in a loop.
    public struct Elements: Collection, Sendable {
        /// A position in the array.
        public typealias Index = ContainerIndex

        let storage: JSONStorage
        let entry: Int

        /// The position of the first element.
        public var startIndex: Index { Index(entry: entry + 1) }

        /// The position after the last element.
        public var endIndex: Index { Index(entry: storage.next(entry)) }

        /// The number of elements.
        public var count: Int { storage.containerCount(entry) }

        /// The element at a position.
        ///
        /// - Parameter position: A valid position in the array.
        public subscript(position: Index) -> JSON {
            JSON(storage: storage, entry: position.entry)
        }

        /// The position after a position.
        ///
        /// - Parameter index: A valid position before ``endIndex``.
        /// - Returns: The next position.
        public func index(after index: Index) -> Index {
            Index(entry: storage.next(index.entry))
        }
    }
}

extension JSON {
    /// A position among the elements of an array or the members of an object: where its entry sits in the document.
    public struct ContainerIndex: Comparable, Sendable {
        let entry: Int

        /// Orders positions by their place in the document.
        ///
        /// - Parameters:
        ///   - lhs: A position.
        ///   - rhs: Another position.
        /// - Returns: Whether `lhs` comes first.
        public static func < (lhs: ContainerIndex, rhs: ContainerIndex) -> Bool { lhs.entry < rhs.entry }
    }
}
