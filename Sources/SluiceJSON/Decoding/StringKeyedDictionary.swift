/// Dictionaries keyed by strings, whose keys are data rather than property names: a key decoding strategy does
/// not apply to them, as with Foundation's `JSONDecoder`.
protocol StringKeyedDictionary {
    static func decode(from decoder: TapeDecoder, at entry: Int, depth: Int) throws -> Self
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decode(from decoder: TapeDecoder, at entry: Int, depth: Int) throws -> Self {
        let storage = decoder.storage
        guard storage.tag(entry) == .object else {
            throw decoder.mismatch(expected: "an object", Self.self, at: entry)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(storage.containerCount(entry))
        var keyEntry = entry + 1
        let end = storage.next(entry)
        while keyEntry < end {
            let value = try decoder.decode(Value.self, at: keyEntry + 1, depth: depth + 1)
            // Inserted only when the key is new, with one lookup: where a key is repeated, every value is decoded
            // and the first is kept, as with Foundation's decoder under a key decoding strategy.
            keepFirst(&result[storage.string(at: keyEntry), default: value])
            keyEntry = storage.next(keyEntry + 1)
        }
        return result
    }
}

/// Leaves a value as it is: passed a dictionary's `subscript(_:default:)`, it inserts the default only for a new key.
private func keepFirst<Value>(_ value: inout Value) {}
