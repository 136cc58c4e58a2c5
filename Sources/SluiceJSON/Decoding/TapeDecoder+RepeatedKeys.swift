// Objects that repeat a key: as with Foundation's `JSONDecoder`, the first occurrence is the one decoded.
extension TapeDecoder {
    /// Whether an object repeats a key, after the key decoding strategy, remembered for the object last checked at
    /// each depth below ``hintDepth``.
    ///
    /// A keyed container asks only once a search would start past the object's first key, where a later occurrence
    /// of a repeated key could be found before the first; an object that repeats a key is then searched from its
    /// first key every time.
    @inline(__always)
    func repeatsKeys(_ object: Int, slot: Int) -> Bool {
        let known = checkedObjects[slot]
        if known == object {
            return false
        }
        if known == ~object {
            return true
        }
        let repeats = repeatsKeys(object)
        checkedObjects[slot] = repeats ? ~object : object
        return repeats
    }

    /// Whether an object repeats a key, after the key decoding strategy.
    ///
    /// One pass over the keys marks a hash of each in a filter of 32 bits a key, from 256 to 8,192 bits, on the
    /// stack; only a key whose bit is already set is compared with the keys before it. Objects without repeated
    /// keys, the common case, rarely compare any.
    func repeatsKeys(_ object: Int) -> Bool {
        let storage = self.storage
        let count = storage.containerCount(object)
        guard count > 1 else { return false }
        let hashing: KeyHashing
        switch options.keyDecodingStrategy.kind {
        case .useDefaultKeys: hashing = .plain
        case .convertFromSnakeCase: hashing = .folded
        case .custom: hashing = .converted
        }
        let bits = min(8_192, max(256, 1 &<< (Int.bitWidth &- (count &* 32 &- 1).leadingZeroBitCount)))
        let shift = UInt64(Int.bitWidth &- bits.trailingZeroBitCount)
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: bits &>> 6) { filter in
            filter.initialize(repeating: 0)
            var keyEntry = object &+ 1
            let end = storage.next(object)
            while keyEntry < end {
                let hash = keyHash(keyEntry, in: object, storage: storage, hashing)
                let bit = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) &>> shift)
                let mask: UInt64 = 1 &<< UInt64(bit & 63)
                if filter[bit &>> 6] & mask != 0, repeatsEarlierKey(keyEntry, in: object) {
                    return true
                }
                filter[bit &>> 6] |= mask
                keyEntry = storage.next(keyEntry &+ 1)
            }
            return false
        }
    }

    /// How keys are hashed under each key decoding strategy, so that keys standing for the same name hash equally.
    private enum KeyHashing {
        /// The key's length and three of its bytes, read in place unless the key has escapes.
        case plain
        /// The key's bytes without underscores and case, which the conversion of an ASCII key keeps, so that such a
        /// key is hashed in place and any other after its conversion.
        case folded
        /// The converted key's length and three of its bytes.
        case converted
    }

    @inline(__always)
    private func keyHash(_ keyEntry: Int, in object: Int, storage: JSONStorage, _ hashing: KeyHashing) -> UInt64 {
        let flags = storage.flags(keyEntry)
        let plainASCII = flags & JSONStorage.stringHasEscapes == 0 && flags & JSONStorage.stringIsASCII != 0
        switch hashing {
        case .plain where plainASCII:
            return Self.shortHash(storage.slice(keyEntry))
        case .folded where plainASCII:
            return Self.foldedHash(storage.slice(keyEntry))
        default:
            return convertedKeyHash(keyEntry, in: object, hashing)
        }
    }

    /// The hash of a key that is read as a string first, being escaped, converted, or not ASCII.
    ///
    /// Text outside ASCII is hashed in its canonical composition (NFC), so that keys Swift's `String` holds equal,
    /// as Foundation's decoder does (`"e\u0301"` and `"é"`, or the Kelvin sign and `K`), hash equally.
    ///
    /// Kept out of line, so that the pass over plain keys keeps its values in registers.
    @inline(never)
    private func convertedKeyHash(_ keyEntry: Int, in object: Int, _ hashing: KeyHashing) -> UInt64 {
        switch hashing {
        case .plain:
            var name = Self.composed(storage.string(at: keyEntry))
            return name.withUTF8(Self.shortHash)
        case .folded:
            var name = Self.composed(convertedKey(at: keyEntry, in: object))
            return name.withUTF8(Self.foldedHash)
        case .converted:
            var name = Self.composed(convertedKey(at: keyEntry, in: object))
            return name.withUTF8(Self.shortHash)
        }
    }

    /// A name in its canonical composition (NFC); an ASCII name as it is.
    private static func composed(_ name: String) -> String {
        name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping
    }

    /// Whether the key at `keyEntry` stands for the same coding key as a key before it in the object.
    ///
    /// Kept out of line: the pass over an object's keys calls it only for a key whose bit is already set.
    @inline(never)
    func repeatsEarlierKey(_ keyEntry: Int, in object: Int) -> Bool {
        let keyMayDiffer = mayEqualOtherBytes(keyEntry)
        var name: String?
        return withKeyName(at: keyEntry, in: object) { bytes in
            var earlier = object + 1
            while earlier < keyEntry {
                if keyMatches(earlier, bytes, in: object)
                    || equalAsStrings(earlier, keyEntry, keyMayDiffer: keyMayDiffer, name: &name, in: object)
                {
                    return true
                }
                earlier = storage.next(earlier + 1)
            }
            return false
        }
    }

    /// Whether a key may be equal, as Swift compares strings, to a key of other bytes: one with escapes or text
    /// outside ASCII, or any key under a custom strategy, whose conversion may produce such text.
    @inline(__always)
    func mayEqualOtherBytes(_ keyEntry: Int) -> Bool {
        if case .custom = options.keyDecodingStrategy.kind {
            return true
        }
        let flags = storage.flags(keyEntry)
        return flags & JSONStorage.stringHasEscapes != 0 || flags & JSONStorage.stringIsASCII == 0
    }

    /// The first key of an object, before `end`, that stands for the same name as the key at `keyEntry` without
    /// the same bytes, compared as Swift compares strings (by canonical equivalence), as with Foundation's decoder;
    /// `nil` when there is none.
    func firstEquivalentKey(to keyEntry: Int, before end: Int, in object: Int) -> Int? {
        let keyMayDiffer = mayEqualOtherBytes(keyEntry)
        var name: String?
        var earlier = object + 1
        while earlier < end {
            if earlier != keyEntry,
                equalAsStrings(earlier, keyEntry, keyMayDiffer: keyMayDiffer, name: &name, in: object)
            {
                return earlier
            }
            earlier = storage.next(earlier + 1)
        }
        return nil
    }

    /// Whether two keys of an object stand for the same name as Swift compares strings (by canonical equivalence).
    ///
    /// Compares only where one side may be written in other bytes (see ``mayEqualOtherBytes(_:)``): two plain ASCII
    /// keys of other bytes are never equal.
    ///
    /// - Parameters:
    ///   - other: The key compared.
    ///   - keyEntry: The key whose name is sought.
    ///   - keyMayDiffer: ``mayEqualOtherBytes(_:)`` of `keyEntry`.
    ///   - name: `keyEntry`'s name, once read: kept for the next comparison.
    ///   - object: The object.
    /// - Returns: Whether the two keys' names are equal strings.
    @inline(__always)
    private func equalAsStrings(
        _ other: Int,
        _ keyEntry: Int,
        keyMayDiffer: Bool,
        name: inout String?,
        in object: Int
    ) -> Bool {
        guard keyMayDiffer || mayEqualOtherBytes(other) else { return false }
        let key = name ?? convertedKey(at: keyEntry, in: object)
        name = key
        return convertedKey(at: other, in: object) == key
    }

    /// A hash of a name's bytes other than underscores, with ASCII letters folded to one case.
    private static func foldedHash(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in name where byte != UInt8(ascii: "_") {
            hash = (hash ^ UInt64(byte | 0x20)) &* 0x100_0000_01B3
        }
        return hash
    }

    /// A hash of a name's length and its first, middle and last bytes.
    @inline(__always)
    private static func shortHash(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard !name.isEmpty else { return 0 }
        let count = name.count
        return UInt64(truncatingIfNeeded: count) ^ UInt64(name[0]) &<< 32 ^ UInt64(name[count &>> 1]) &<< 40
            ^ UInt64(name[count &- 1]) &<< 48
    }

    /// Runs `body` with the UTF-8 bytes of the coding key name the key at `keyEntry` stands for, in a buffer that
    /// stays valid while `body` matches other keys.
    private func withKeyName<R>(
        at keyEntry: Int,
        in object: Int,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        let plain = storage.flags(keyEntry) & JSONStorage.stringHasEscapes == 0
        switch options.keyDecodingStrategy.kind {
        case .useDefaultKeys where plain:
            return body(storage.slice(keyEntry))
        case .convertFromSnakeCase
        where plain && TapeDecoder.convertFromSnakeCase(storage.slice(keyEntry), into: &scratch):
            // `keyMatches` reuses the scratch buffer, so the name is copied out of it first.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratch.count) { copy in
                _ = copy.initialize(from: scratch)
                return body(UnsafeBufferPointer(copy))
            }
        default:
            var name = convertedKey(at: keyEntry, in: object)
            return name.withUTF8(body)
        }
    }
}
