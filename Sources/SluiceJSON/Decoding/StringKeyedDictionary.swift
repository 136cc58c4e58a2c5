/// Dictionaries keyed by strings, whose keys are data rather than property names: a key decoding strategy does
/// not apply to them, as with Foundation's `JSONDecoder`.
///
/// The decoder builds them straight from the tape, without a keyed container, its list of keys and a search for
/// each.
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
        // Coding paths through this object hold its keys as written, as Foundation's do, not converted.
        if decoder.keyConversion {
            decoder.dictionaryObjects.append(entry)
        }
        defer {
            if decoder.keyConversion {
                decoder.dictionaryObjects.removeLast()
            }
        }
        var keyEntry = entry + 1
        let end = storage.next(entry)
        while keyEntry < end {
            // A repeated key keeps its first value, as with Foundation's decoder, which without a key decoding
            // strategy decodes only that one, and with one decodes every value. Keys that Swift's `String` holds
            // equal (`"e\u0301"` and `"é"`) are one key, spelled as first written.
            let key = storage.string(at: keyEntry)
            if result[key] == nil {
                result[key] = try decoder.decode(Value.self, at: keyEntry + 1, depth: depth + 1)
            } else if decoder.keyConversion {
                _ = try decoder.decode(Value.self, at: keyEntry + 1, depth: depth + 1)
            }
            keyEntry = storage.next(keyEntry + 1)
        }
        return result
    }
}
