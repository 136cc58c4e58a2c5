/// The `Encoder` that writes a value into a ``QueryNode``, for ``QueryEncoder``.
struct QueryNodeEncoder: Encoder {
    let node: QueryNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = node.kind {
            node.kind = .object
        }
        return KeyedEncodingContainer(Keyed(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .empty = node.kind {
            node.kind = .array
        }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(node: node, codingPath: codingPath)
    }

    /// A coding key for an array index.
    private struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { intValue.map(String.init) ?? "" }

        init(_ index: Int) {
            intValue = index
        }

        init?(stringValue: String) {
            nil
        }

        init?(intValue: Int) {
            self.intValue = intValue
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: QueryNode
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) {
            node.member(key.stringValue).kind = .null
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            let member = node.member(key.stringValue)
            try member.encode(value, encoder: QueryNodeEncoder(node: member, codingPath: codingPath + [key]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            QueryNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            QueryNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            QueryNodeEncoder(node: node.member("super"), codingPath: codingPath)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            QueryNodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    private struct Unkeyed: UnkeyedEncodingContainer {
        let node: QueryNode
        let codingPath: [any CodingKey]
        var count: Int { node.elements.count }

        private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }

        mutating func encodeNil() {
            node.element().kind = .null
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let path = nextPath
            let element = node.element()
            try element.encode(value, encoder: QueryNodeEncoder(node: element, codingPath: path))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            let path = nextPath
            return QueryNodeEncoder(node: node.element(), codingPath: path).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = nextPath
            return QueryNodeEncoder(node: node.element(), codingPath: path).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            let path = nextPath
            return QueryNodeEncoder(node: node.element(), codingPath: path)
        }
    }

    private struct Single: SingleValueEncodingContainer {
        let node: QueryNode
        let codingPath: [any CodingKey]

        mutating func encodeNil() {
            node.kind = .null
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try node.encode(value, encoder: QueryNodeEncoder(node: node, codingPath: codingPath))
        }
    }
}
