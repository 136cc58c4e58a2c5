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
            result[storage.string(at: keyEntry)] = try decoder.decode(Value.self, at: keyEntry + 1, depth: depth + 1)
            keyEntry = storage.next(keyEntry + 1)
        }
        return result
    }
}
