// Matching object keys to coding keys under each key decoding strategy.
extension TapeDecoder {
    /// Whether the object key at `keyEntry` stands for a coding key spelled `name`.
    @inline(__always)
    func keyMatches(_ keyEntry: Int, _ name: UnsafeBufferPointer<UInt8>, in object: Int) -> Bool {
        switch options.keyDecodingStrategy.kind {
        case .useDefaultKeys:
            return storage.stringEquals(keyEntry, name)
        case .convertFromSnakeCase:
            if TapeDecoder.convertFromSnakeCase(storage.slice(keyEntry), into: &scratch) {
                return scratch.withUnsafeBufferPointer { $0.elementsEqual(name) }
            }
            return convertedKey(at: keyEntry, in: object).utf8.elementsEqual(name)
        case .custom:
            return convertedKey(at: keyEntry, in: object).utf8.elementsEqual(name)
        }
    }

    /// The coding key name the object key at `keyEntry` stands for.
    func convertedKey(at keyEntry: Int, in object: Int) -> String {
        let key = storage.string(at: keyEntry)
        switch options.keyDecodingStrategy.kind {
        case .useDefaultKeys:
            return key
        case .convertFromSnakeCase:
            return TapeDecoder.convertFromSnakeCase(key)
        case .custom(let convert):
            return convert(path(to: object) + [JSONPathKey(stringValue: key)]).stringValue
        }
    }

    /// Converts snake case made of ASCII letters and underscores into `output`, without building a `String`:
    /// leading and trailing underscores kept, inner runs of underscores removed, the first word lower-cased and
    /// every later word capitalized; a key without an inner underscore is kept as it is.
    ///
    /// Returns `false`, writing nothing, for a key with any other byte (digits, escapes, non-ASCII), whose
    /// capitalization is left to Foundation, as `JSONDecoder` does.
    static func convertFromSnakeCase(_ key: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Bool {
        let underscore = UInt8(ascii: "_")
        guard key.allSatisfy({ $0 == underscore || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z")) })
        else { return false }
        output.removeAll(keepingCapacity: true)
        var start = 0
        while start < key.count, key[start] == underscore {
            start += 1
        }
        var end = key.count
        while end > start, key[end - 1] == underscore {
            end -= 1
        }
        guard key[start..<end].contains(underscore) else {
            output.append(contentsOf: key)
            return true
        }
        output.append(contentsOf: key[0..<start])
        var wordIndex = 0
        var atWordStart = true
        for index in start..<end {
            let byte = key[index]
            if byte == underscore {
                if !atWordStart {
                    wordIndex += 1
                }
                atWordStart = true
                continue
            }
            let isUpper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
            let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
            if atWordStart && wordIndex > 0 {
                output.append(isLower ? byte - 32 : byte)
            } else {
                output.append(isUpper ? byte + 32 : byte)
            }
            atWordStart = false
        }
        output.append(contentsOf: key[end..<key.count])
        return true
    }

    /// Converts any snake case key, as Foundation's `JSONDecoder` does.
    static func convertFromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" {
            last = key.index(before: last)
        }
        let middle = key[first...last]
        let words = middle.split(separator: "_")
        guard words.count > 1 else { return key }
        let converted = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + converted + String(key[key.index(after: last)...])
    }

    /// A separate decoder on `null`, for `superDecoder` with a key the object does not have: its coding path is
    /// the missing key's.
    func detachedOnNull(at path: [any CodingKey]) -> TapeDecoder {
        let null = JSON.null
        let decoder = TapeDecoder(storage: null.storage, root: null.entry, options: options)
        decoder.pathPrefix = path
        return decoder
    }

    /// A separate decoder positioned at an entry, for `superDecoder`.
    func detached(at entry: Int) -> TapeDecoder {
        let decoder = TapeDecoder(storage: storage, root: root, options: options)
        decoder.entry = entry
        decoder.dictionaryObjects = dictionaryObjects
        return decoder
    }
}
