/// A keyed container over one object of the tape.
///
/// Keys are found by comparing bytes, starting where the previous key of the same object was found; a model that
/// reads its properties in the document's order finds each at the first comparison.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let object: Int
    let depth: Int

    var codingPath: [any CodingKey] { decoder.path(to: object) }

    var allKeys: [Key] {
        let storage = decoder.storage
        var keys: [Key] = []
        var keyEntry = object + 1
        let end = storage.next(object)
        while keyEntry < end {
            if let key = Key(stringValue: decoder.convertedKey(at: keyEntry, in: object)) {
                keys.append(key)
            }
            keyEntry = storage.next(keyEntry + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        find(key) != nil
    }

    // MARK: - Finding keys

    /// The value entry for a key, or `nil`.
    private func find(_ key: Key) -> Int? {
        let storage = decoder.storage
        let first = object + 1
        let end = storage.next(object)
        let slot = depth < TapeDecoder.hintDepth ? depth : -1
        var start = first
        if slot >= 0, decoder.hints[2 &* slot] == object, decoder.hints[2 &* slot &+ 1] < end {
            start = decoder.hints[2 &* slot &+ 1]
        }
        var name = key.stringValue
        return name.withUTF8 { name in
            var keyEntry = start
            while keyEntry < end {
                if decoder.keyMatches(keyEntry, name, in: object) {
                    return found(keyEntry, slot: slot)
                }
                keyEntry = storage.next(keyEntry + 1)
            }
            keyEntry = first
            while keyEntry < start {
                if decoder.keyMatches(keyEntry, name, in: object) {
                    return found(keyEntry, slot: slot)
                }
                keyEntry = storage.next(keyEntry + 1)
            }
            return nil
        }
    }

    @inline(__always)
    private func found(_ keyEntry: Int, slot: Int) -> Int {
        if slot >= 0 {
            decoder.hints[2 &* slot] = object
            decoder.hints[2 &* slot &+ 1] = decoder.storage.next(keyEntry + 1)
        }
        return keyEntry + 1
    }

    /// The value entry for a key, or `keyNotFound`.
    private func require(_ key: Key) throws -> Int {
        guard let entry = find(key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "no value for key \"\(key.stringValue)\" in an object with keys "
                        + describeKeys()
                )
            )
        }
        return entry
    }

    /// The value entry for a key, or `nil` when it is missing or `null`.
    @inline(__always)
    private func present(_ key: Key) -> Int? {
        guard let entry = find(key), decoder.storage.tag(entry) != .null else { return nil }
        return entry
    }

    private func describeKeys() -> String {
        let keys = JSON(storage: decoder.storage, entry: object).members?.keys ?? []
        let shown = keys.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ")
        return keys.count > 8 ? "\(shown) and \(keys.count - 8) more" : (keys.isEmpty ? "(none)" : shown)
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.storage.tag(try require(key)) == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.decodeBool(at: require(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.decodeString(at: require(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.decodeFloatingPoint(type, at: require(key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.decodeFloatingPoint(type, at: require(key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decoder.decodeInteger(type, at: require(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: require(key), depth: depth + 1)
    }

    // MARK: - Decoding optionals, with one lookup each

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map(decoder.decodeBool)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map(decoder.decodeString)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try decoder.decodeFloatingPoint(type, at: $0) }
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try present(key).map { try decoder.decodeFloatingPoint(type, at: $0) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try present(key).map { try decoder.decodeInteger(type, at: $0) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.decode(type, at: $0, depth: depth + 1) }
    }

    // MARK: - Nested containers

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try require(key)
        guard decoder.storage.tag(entry) == .object else {
            throw decoder.mismatch(expected: "an object", NestedKey.self, at: entry)
        }
        return KeyedDecodingContainer(TapeKeyedContainer<NestedKey>(decoder: decoder, object: entry, depth: depth + 1))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let entry = try require(key)
        guard decoder.storage.tag(entry) == .array else {
            throw decoder.mismatch(expected: "an array", [Any].self, at: entry)
        }
        return TapeUnkeyedContainer(decoder: decoder, array: entry, depth: depth + 1)
    }

    func superDecoder() throws -> any Decoder {
        try decoder.detached(at: require(Key(stringValue: "super") ?? missingSuperKey()))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder.detached(at: require(key))
    }

    private func missingSuperKey() throws -> Key {
        throw DecodingError.keyNotFound(
            JSONPathKey.superKey,
            DecodingError.Context(codingPath: codingPath, debugDescription: "\(Key.self) has no key \"super\"")
        )
    }
}
