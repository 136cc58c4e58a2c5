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

// Predicting which key a keyed container looks up next, from the order of the lookups in the objects before.
extension TapeDecoder {
    /// Counts a lookup in `object`, at depth `slot` below ``predictionDepth``, and returns its number among the
    /// lookups in the object, or -1 when the object's lookups are not predicted.
    @inline(__always)
    func countLookup(in object: Int, slot: Int) -> Int {
        let table = predictions + slot &* TapeDecoder.predictionStride
        if table[0] != object {
            table[0] = object
            table[1] = TapeDecoder.keysNotListed
            table[2] = 0
        }
        let lookup = table[2]
        guard table[1] != TapeDecoder.notPredicted, lookup < TapeDecoder.predictedKeys else { return -1 }
        table[2] = lookup &+ 1
        return lookup
    }

    /// Lists the keys of the object a depth's lookups are counted in, the first time a prediction needs them, and
    /// returns whether its lookups are predicted.
    ///
    /// Listing costs a step along the tape for each key, so it waits until a lookup misses the key after the previous
    /// one, which a model reading in the document's order never does. An object with more than ``predictedKeys``
    /// keys, or with a repeated key, is not predicted. In an object that repeats no key, the one key that matches a
    /// name is the key the search would find, wherever the search starts.
    private func listKeys(slot: Int) -> Bool {
        let table = predictions + slot &* TapeDecoder.predictionStride
        guard table[1] == TapeDecoder.keysNotListed else { return table[1] >= 0 }
        let object = table[0]
        let count = storage.containerCount(object)
        if count > TapeDecoder.predictedKeys || repeatsKeys(object, slot: slot) {
            table[1] = TapeDecoder.notPredicted
            return false
        }
        var keyEntry = object &+ 1
        for index in 0..<count {
            table[4 &+ index] = keyEntry
            keyEntry = storage.next(keyEntry &+ 1)
        }
        table[1] = count
        return true
    }

    /// The key entry of `object` in the place where the same lookup found its key in the object before, when that
    /// key matches `name`.
    @inline(__always)
    func predictedKey(_ lookup: Int, slot: Int, matching name: UnsafeBufferPointer<UInt8>, in object: Int) -> Int? {
        guard listKeys(slot: slot) else { return nil }
        let table = predictions + slot &* TapeDecoder.predictionStride
        guard lookup < table[3] else { return nil }
        let place = table[4 &+ TapeDecoder.predictedKeys &+ lookup]
        guard place >= 0, place < table[1] else { return nil }
        let keyEntry = table[4 &+ place]
        return keyMatches(keyEntry, name, in: object) ? keyEntry : nil
    }

    /// Records the place among the object's keys of the key a lookup found by searching, or that it found none; the
    /// places of the lookups before it that were never recorded are marked unknown, so that every place below
    /// the recorded count has been written.
    func recordLookup(_ lookup: Int, slot: Int, found keyEntry: Int?) {
        let table = predictions + slot &* TapeDecoder.predictionStride
        guard table[1] >= 0 else { return }
        var place = -1
        if let keyEntry {
            for index in 0..<table[1] where table[4 &+ index] == keyEntry {
                place = index
                break
            }
        }
        // The lookups in between found their keys after the previous ones, unrecorded: their places are unknown.
        let orders = table + (4 &+ TapeDecoder.predictedKeys)
        if lookup > table[3] {
            (orders + table[3]).initialize(repeating: -1, count: lookup &- table[3])
        }
        orders[lookup] = place
        if lookup >= table[3] {
            table[3] = lookup &+ 1
        }
    }
}
