/// A keyed container over one object of the tape.
///
/// Keys are found by comparing bytes: first the key after the previous one found in the same object, then the key in
/// the place where the same lookup found its key in the object before at this depth, then by a search on from the
/// previous key. A model that reads its properties in the document's order finds each at the first comparison, and
/// one that reads them in another order kept from object to object at the second. Where the object repeats a key,
/// the first occurrence is decoded, as with Foundation's decoder: such an object is searched from its first key.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let object: Int
    let depth: Int

    var codingPath: [any CodingKey] { decoder.path(to: object) }

    /// The keys of the object that `Key` has, in document order; a repeated key is listed once.
    var allKeys: [Key] {
        let storage = decoder.storage
        let repeats =
            depth < TapeDecoder.hintDepth ? decoder.repeatsKeys(object, slot: depth) : decoder.repeatsKeys(object)
        var keys: [Key] = []
        var keyEntry = object + 1
        let end = storage.next(object)
        while keyEntry < end {
            if !(repeats && decoder.repeatsEarlierKey(keyEntry, in: object)),
                let key = Key(stringValue: decoder.convertedKey(at: keyEntry, in: object))
            {
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
        find(named: key.stringValue)
    }

    /// The value entry for a key's name, or `nil`.
    private func find(named key: String) -> Int? {
        let storage = decoder.storage
        let first = object + 1
        let end = storage.next(object)
        let slot = depth < TapeDecoder.hintDepth ? depth : -1
        var start = first
        // A search from past the first key could find a repeated key's later occurrence first.
        if slot >= 0, decoder.hints[2 &* slot] == object, decoder.hints[2 &* slot &+ 1] < end,
            !decoder.repeatsKeys(object, slot: slot)
        {
            start = decoder.hints[2 &* slot &+ 1]
        }
        let lookup = slot >= 0 && slot < TapeDecoder.predictionDepth ? decoder.countLookup(in: object, slot: slot) : -1
        var name = key
        return name.withUTF8 { name in
            // The key after the previous one found, where a model reading in the document's order finds it; the hint
            // is kept only in an object that repeats no key.
            if start != first, decoder.keyMatches(start, name, in: object) {
                return found(start, slot: slot)
            }
            if lookup >= 0 {
                if let keyEntry = decoder.predictedKey(lookup, slot: slot, matching: name, in: object) {
                    return found(keyEntry, slot: slot)
                }
                let entry = search(name, key: key, from: start, slot: slot)
                decoder.recordLookup(lookup, slot: slot, found: entry.map { $0 - 1 })
                return entry
            }
            return search(name, key: key, from: start, slot: slot)
        }
    }

    /// The value entry for a key's name, searched from the key entry `start` to the end of the object and then from
    /// its first key, or `nil`.
    ///
    /// A `start` past the first key is the hint ``find(named:)`` has already compared, so the search begins after it.
    private func search(_ name: UnsafeBufferPointer<UInt8>, key: String, from start: Int, slot: Int) -> Int? {
        let storage = decoder.storage
        let first = object + 1
        let end = storage.next(object)
        var keyEntry = start == first ? start : storage.next(start + 1)
        while keyEntry < end {
            if decoder.keyMatches(keyEntry, name, in: object) {
                // Searched from the first key: one before it may stand for the same name in other bytes (a
                // search from a later key was allowed only in an object that repeats no key).
                guard start == first, keyEntry != first,
                    let earlier = decoder.firstEquivalentKey(to: keyEntry, before: keyEntry, in: object)
                else { return found(keyEntry, slot: slot) }
                return found(earlier, slot: slot)
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
        return findCanonicallyEquivalent(to: key, name, slot: slot)
    }

    /// The value entry for a key that matches no key byte for byte, found as Swift compares strings: by canonical
    /// equivalence, so that a key written decomposed (`"e\u0301"`) matches a property spelled precomposed (`é`),
    /// as with Foundation's decoder.
    ///
    /// Reached only on a miss, and compares only where text outside ASCII is involved (an ASCII string is
    /// equivalent to no other ASCII string), so that models with ASCII keys pay one pass over the keys' bytes.
    private func findCanonicallyEquivalent(to key: String, _ name: UnsafeBufferPointer<UInt8>, slot: Int) -> Int? {
        let storage = decoder.storage
        let nameIsASCII = name.allSatisfy { $0 < 0x80 }
        var keyEntry = object + 1
        let end = storage.next(object)
        while keyEntry < end {
            if !nameIsASCII || decoder.mayEqualOtherBytes(keyEntry),
                decoder.convertedKey(at: keyEntry, in: object) == key
            {
                return found(keyEntry, slot: slot)
            }
            keyEntry = storage.next(keyEntry + 1)
        }
        return nil
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
        // Not `Optional.map`: with `T` unknown here, that runs the unspecialized `map` through `T`'s witnesses.
        guard let entry = present(key) else { return nil }
        return try decoder.decode(type, at: entry, depth: depth + 1)
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

    /// A decoder for the value under `super`, or for `null` when the object has none, as with Foundation's
    /// decoder; `Key` need not have a `super` case.
    func superDecoder() -> any Decoder {
        superDecoder(at: find(named: JSONPathKey.superKey.stringValue), key: JSONPathKey.superKey)
    }

    /// A decoder for the value under a key, or for `null` when the object has none, as with Foundation's decoder.
    ///
    /// - Parameter key: The key.
    /// - Returns: The decoder.
    func superDecoder(forKey key: Key) -> any Decoder {
        superDecoder(at: find(key), key: key)
    }

    private func superDecoder(at entry: Int?, key: any CodingKey) -> any Decoder {
        guard let entry else {
            return decoder.detachedOnNull(at: codingPath + [key])
        }
        return decoder.detached(at: entry)
    }
}
