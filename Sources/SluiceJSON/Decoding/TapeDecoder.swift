/// The `Decoder` behind ``JSONDocumentDecoder``: reads values from a document's tape in place.
///
/// One instance decodes one top-level value. `entry` is the value being decoded; decoding a nested value moves it
/// and puts it back. Coding paths are not tracked as values are decoded: they are worked out from the tape when
/// an error is thrown or `codingPath` is read, so decoding that succeeds pays nothing for them.
final class TapeDecoder: Decoder {
    let storage: JSONStorage
    let root: Int
    let options: JSONDocumentDecoder
    var entry: Int
    /// The nesting depth of `entry` below `root`, which indexes ``hints``.
    var depth = 0
    /// Where keyed containers expect their next key, so that they find keys in document order without scanning.
    ///
    /// For each depth below ``hintDepth``: the object last searched at it (even lanes) and the key entry where its
    /// next key is expected (odd lanes), `2 * hintDepth` words.
    ///
    /// Both tables are words, written one word at a time, in one allocation with ``kindTypes`` and ``kinds``. Held
    /// inline as SIMD vectors, as they once were, every write loaded and stored the whole vector: a third of the time
    /// spent finding keys.
    let hints: UnsafeMutablePointer<Int>
    static let hintDepth = 16
    /// For each depth below ``hintDepth``: the object last checked for repeated keys at it, as its entry when its
    /// keys are distinct and as the entry's complement when it repeats one; see ``repeatsKeys(_:slot:)``.
    let checkedObjects: UnsafeMutablePointer<Int>
    /// The order in which keyed containers look keys up, learnt from the objects met before at the same depth, so
    /// that a model reading its properties in another order than the document's finds each key at the first
    /// comparison; see ``countLookup(in:slot:)``.
    ///
    /// For each depth below ``predictionDepth``, ``predictionStride`` words: the object whose lookups are counted
    /// (-1 before the first); its key count, or ``keysNotListed``, or ``notPredicted`` (more than ``predictedKeys``
    /// keys, or a repeated key); the lookups made in it so far; one past the last lookup with a recorded place (each
    /// place below it written, -1 where unknown); its key entries in document order, once listed; and for the n-th
    /// lookup, the place of the key it found among the keys of the object it was last recorded in, -1 for none.
    let predictions: UnsafeMutablePointer<Int>
    static let predictionDepth = 8
    static let predictedKeys = 32
    /// The key count of a depth's object whose keys are not listed yet; see ``listKeys(slot:)``.
    static let keysNotListed = -2
    /// The key count of a depth's object whose lookups are not predicted.
    static let notPredicted = -1
    static let predictionStride = 4 &+ 2 &* predictedKeys
    /// The types met so far, as the addresses of their metadata, for ``kind(of:)``: a table of ``kindCacheSize``
    /// slots, 0 where empty, whose kinds are in ``kinds``.
    let kindTypes: UnsafeMutablePointer<UInt>
    /// The kinds of the types in ``kindTypes``, slot for slot; a slot's kind is initialized when its type is set.
    let kinds: UnsafeMutablePointer<TypeKind>
    /// A buffer for converting keys under `.convertFromSnakeCase`.
    var scratch: [UInt8] = []
    /// Whether a key decoding strategy other than the default is set.
    let keyConversion: Bool
    /// The objects being decoded as `[String: V]` under a key decoding strategy, innermost last: ``path(to:)``
    /// holds their keys as written.
    var dictionaryObjects: [Int] = []
    /// The coding path of ``root`` when it is not the document's root: that of a missing key, for a decoder on
    /// `null` that `superDecoder(forKey:)` hands out.
    var pathPrefix: [any CodingKey] = []

    init(storage: JSONStorage, root: Int, options: JSONDocumentDecoder) {
        self.storage = storage
        self.root = root
        self.entry = root
        self.options = options
        // The tables share one allocation: the words first, then the kinds.
        let predictionWords = TapeDecoder.predictionDepth &* TapeDecoder.predictionStride
        let intWords = 3 &* TapeDecoder.hintDepth &+ predictionWords
        let wordBytes = (intWords &+ TapeDecoder.kindCacheSize) &* MemoryLayout<Int>.stride
        let tables = UnsafeMutableRawPointer.allocate(
            byteCount: wordBytes &+ TapeDecoder.kindCacheSize &* MemoryLayout<TypeKind>.stride,
            alignment: max(MemoryLayout<Int>.alignment, MemoryLayout<TypeKind>.alignment)
        )
        hints = tables.bindMemory(to: Int.self, capacity: intWords)
        hints.initialize(repeating: -1, count: 2 &* TapeDecoder.hintDepth)
        checkedObjects = hints + 2 &* TapeDecoder.hintDepth
        checkedObjects.initialize(repeating: .min, count: TapeDecoder.hintDepth)
        predictions = checkedObjects + TapeDecoder.hintDepth
        // Only each depth's first four words are read before they are written: a key entry is read only below the
        // listed count, and a place only below the recorded count, both written first.
        for slot in 0..<TapeDecoder.predictionDepth {
            let table = predictions + slot &* TapeDecoder.predictionStride
            table.initialize(repeating: -1, count: 2)
            (table + 2).initialize(repeating: 0, count: 2)
        }
        kindTypes = (tables + intWords &* MemoryLayout<Int>.stride)
            .bindMemory(to: UInt.self, capacity: TapeDecoder.kindCacheSize)
        kindTypes.initialize(repeating: 0, count: TapeDecoder.kindCacheSize)
        kinds = (tables + wordBytes).bindMemory(to: TypeKind.self, capacity: TapeDecoder.kindCacheSize)
        if case .useDefaultKeys = options.keyDecodingStrategy.kind {
            self.keyConversion = false
        } else {
            self.keyConversion = true
        }
    }

    deinit {
        // The kinds set are metatypes, which need no deinitialization.
        UnsafeMutableRawPointer(hints).deallocate()
    }

    var codingPath: [any CodingKey] { path(to: entry) }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard storage.tag(entry) == .object else {
            throw mismatch(expected: "an object", Key.self, at: entry)
        }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: entry, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard storage.tag(entry) == .array else {
            throw mismatch(expected: "an array", [Any].self, at: entry)
        }
        return TapeUnkeyedContainer(decoder: self, array: entry, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TapeSingleValueContainer(decoder: self, entry: entry)
    }

    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        try decode(type, at: root, depth: 0)
    }

    // MARK: - Values

    /// Decodes any `Decodable` at an entry: the types with strategies here, everything else through its
    /// `init(from:)` with this decoder moved to the entry.
    func decode<T: Decodable>(_ type: T.Type, at entry: Int, depth: Int) throws -> T {
        // Each value is handed back with `identical(_:as:)`, not `as? T`: a cast to `T` fetches the metadata of
        // `Optional<T>` from the runtime's cache on every call, whatever `T` is.
        if T.self == Date.self {
            return identical(try decodeDate(at: entry, depth: depth), as: T.self)
        }
        if T.self == Data.self {
            return identical(try decodeData(at: entry, depth: depth), as: T.self)
        }
        if T.self == URL.self {
            return identical(try decodeURL(at: entry), as: T.self)
        }
        if T.self == Decimal.self {
            return identical(try decodeDecimal(at: entry), as: T.self)
        }
        if T.self == JSON.self {
            return identical(JSON(storage: storage, entry: entry), as: T.self)
        }
        switch (storage.tag(entry), kind(of: T.self)) {
        case (.array, .scalarArray(let scalars)):
            return try decodeScalars(scalars, at: entry, as: T.self)
        case (.array, .array(let array)):
            return try decodeElements(array, at: entry, depth: depth, as: T.self)
        case (.object, .dictionary(let dictionary)):
            return try decodeDictionary(dictionary, at: entry, depth: depth, as: T.self)
        default:
            return try withPosition(entry, depth: depth) { try T(from: self) }
        }
    }

    /// How ``decode(_:at:depth:)`` reads a type: through its `init(from:)`, or straight from the tape as an array
    /// or a dictionary keyed by strings.
    enum TypeKind {
        case plain
        case scalarArray(any TapeScalarArray.Type)
        case array(any TapeArray.Type)
        case dictionary(any StringKeyedDictionary.Type)
    }

    /// The number of types ``kindTypes`` remembers, a power of two: more than a decode usually meets.
    static let kindCacheSize = 32

    /// The kind of a type, from ``kinds`` when the type was met before in this decode.
    ///
    /// Finding it out takes up to three casts to a protocol, each a search of the runtime's conformance cache; a
    /// model decoded a thousand times in an array would make them a thousand times. The table is searched from a
    /// hash of the type's metadata address to the type or an empty slot, and keeps each type met until it is full.
    /// (A table of one type a slot, the last one met winning, let two types whose addresses shared a slot, such as
    /// a user and its address in a list of users, evict each other at every element, in one process in ten.)
    @inline(__always)
    private func kind<T>(of type: T.Type) -> TypeKind {
        let identifier = UInt(bitPattern: ObjectIdentifier(type))
        let mask = Self.kindCacheSize &- 1
        var slot = Int(truncatingIfNeeded: (UInt64(identifier) &* 0x9E37_79B9_7F4A_7C15) &>> 32) & mask
        var probes = 0
        while true {
            let found = kindTypes[slot]
            if found == identifier {
                return kinds[slot]
            }
            if found == 0 {
                break
            }
            probes &+= 1
            if probes == Self.kindCacheSize {
                // Full: the kind is found out again each time.
                return Self.findKind(of: type)
            }
            slot = (slot &+ 1) & mask
        }
        let kind = Self.findKind(of: type)
        kindTypes[slot] = identifier
        (kinds + slot).initialize(to: kind)
        return kind
    }

    /// The kind of a type, found by casting it to the protocols of each kind.
    private static func findKind<T>(of type: T.Type) -> TypeKind {
        if let scalars = type as? any TapeScalarArray.Type {
            return .scalarArray(scalars)
        }
        if let array = type as? any TapeArray.Type {
            return .array(array)
        }
        if let dictionary = type as? any StringKeyedDictionary.Type {
            return .dictionary(dictionary)
        }
        return .plain
    }

    /// The array `T` decoded as an array of scalars, `A` being `T` itself, opened from an existential.
    private func decodeScalars<A: TapeScalarArray, T>(_ array: A.Type, at entry: Int, as type: T.Type) throws -> T {
        identical(try A.decodeScalars(from: self, at: entry), as: T.self)
    }

    /// The array `T` decoded element by element, `A` being `T` itself, opened from an existential.
    private func decodeElements<A: TapeArray, T>(
        _ array: A.Type,
        at entry: Int,
        depth: Int,
        as type: T.Type
    ) throws -> T {
        identical(try A.decodeElements(from: self, at: entry, depth: depth), as: T.self)
    }

    /// The dictionary `T` decoded with its keys converted, `D` being `T` itself, opened from an existential.
    private func decodeDictionary<D: StringKeyedDictionary, T>(
        _ dictionary: D.Type,
        at entry: Int,
        depth: Int,
        as type: T.Type
    ) throws -> T {
        identical(try D.decode(from: self, at: entry, depth: depth), as: T.self)
    }

    /// A value of a type that the caller has found to be `T` itself, as a `T`.
    @inline(__always)
    private func identical<Value, T>(_ value: Value, as type: T.Type) -> T {
        assert(Value.self == T.self)
        return unsafeBitCast(value, to: T.self)
    }

    /// Runs `body` with the decoder moved to an entry one level deeper, and moves it back.
    @inline(__always)
    func withPosition<R>(_ entry: Int, depth: Int, _ body: () throws -> R) rethrows -> R {
        let savedEntry = self.entry
        let savedDepth = self.depth
        self.entry = entry
        self.depth = depth
        defer {
            self.entry = savedEntry
            self.depth = savedDepth
        }
        return try body()
    }

    func decodeBool(at entry: Int) throws -> Bool {
        switch storage.tag(entry) {
        case .true: return true
        case .false: return false
        default: throw mismatch(expected: "Bool", Bool.self, at: entry)
        }
    }

    func decodeString(at entry: Int) throws -> String {
        guard storage.tag(entry) == .string else {
            throw mismatch(expected: "String", String.self, at: entry)
        }
        return storage.string(at: entry)
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, at entry: Int) throws -> T {
        guard storage.tag(entry) == .number else {
            throw mismatch(expected: "\(T.self)", T.self, at: entry)
        }
        guard let value = storage.integer(T.self, at: entry) else {
            throw doesNotFit(T.self, at: entry)
        }
        return value
    }

    /// The error for a number outside a type's range, quoting the number as written.
    private func doesNotFit(_ type: Any.Type, at entry: Int) -> DecodingError {
        let number = String(decoding: storage.slice(entry), as: UTF8.self)
        return DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: path(to: entry),
                debugDescription: "number \(number) does not fit in \(type)"
            )
        )
    }

    func decodeFloatingPoint<T: BinaryFloatingPoint>(_ type: T.Type, at entry: Int) throws -> T {
        switch storage.tag(entry) {
        case .number:
            let value: T
            if T.self == Float.self {
                // Rounded once, from the text, as Foundation reads a `Float`: through a `Double` it would be rounded
                // twice, and a number just above a halfway point between two floats would round to the wrong one.
                value = T(Float(String(decoding: storage.slice(entry), as: UTF8.self)) ?? .infinity)
            } else {
                value = T(storage.double(at: entry))
            }
            guard value.isFinite else {
                throw doesNotFit(T.self, at: entry)
            }
            return value
        case .string:
            if let names = options.nonConformingFloatDecodingStrategy.names {
                let text = storage.string(at: entry)
                if text == names.positiveInfinity {
                    return .infinity
                } else if text == names.negativeInfinity {
                    return -.infinity
                } else if text == names.nan {
                    return .nan
                }
            }
            throw mismatch(expected: "\(T.self)", T.self, at: entry)
        default:
            throw mismatch(expected: "\(T.self)", T.self, at: entry)
        }
    }

    private func decodeDate(at entry: Int, depth: Int) throws -> Date {
        switch options.dateDecodingStrategy.kind {
        case .deferredToDate:
            return try withPosition(entry, depth: depth) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decodeFloatingPoint(Double.self, at: entry))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decodeFloatingPoint(Double.self, at: entry) / 1000)
        case .iso8601:
            guard storage.tag(entry) == .string else {
                throw mismatch(expected: "an ISO 8601 date string", Date.self, at: entry)
            }
            let text = storage.slice(entry)
            guard storage.flags(entry) & JSONStorage.stringHasEscapes == 0, let date = ISO8601.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path(to: entry),
                        debugDescription: "expected an ISO 8601 date such as 2026-03-01T09:30:00Z, found "
                            + describe(entry)
                    )
                )
            }
            return date
        case .formatted(let parse):
            let text = try decodeString(at: entry)
            do {
                return try parse(text)
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path(to: entry),
                        debugDescription: "expected a date in the strategy's format, found \(describe(entry))",
                        underlyingError: error
                    )
                )
            }
        case .custom(let decode):
            return try withPosition(entry, depth: depth) { try decode(self) }
        }
    }

    private func decodeData(at entry: Int, depth: Int) throws -> Data {
        switch options.dataDecodingStrategy.kind {
        case .base64:
            let text = try decodeString(at: entry)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path(to: entry),
                        debugDescription: "expected Base64-encoded data, found \(describe(entry))"
                    )
                )
            }
            return data
        case .deferredToData:
            return try withPosition(entry, depth: depth) { try Data(from: self) }
        case .custom(let decode):
            return try withPosition(entry, depth: depth) { try decode(self) }
        }
    }

    private func decodeURL(at entry: Int) throws -> URL {
        let text = try decodeString(at: entry)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: path(to: entry), debugDescription: "invalid URL \(describe(entry))")
            )
        }
        return url
    }

    private func decodeDecimal(at entry: Int) throws -> Decimal {
        guard storage.tag(entry) == .number else {
            throw mismatch(expected: "Decimal", Decimal.self, at: entry)
        }
        guard let decimal = storage.decimal(at: entry) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path(to: entry),
                    debugDescription: "\(describe(entry)) does not fit in Decimal"
                )
            )
        }
        return decimal
    }

    // MARK: - Errors

    /// A type mismatch at an entry: `expected String, found number 42`, or a missing value for `null`.
    func mismatch(expected: String, _ type: Any.Type, at entry: Int) -> DecodingError {
        let context = DecodingError.Context(
            codingPath: path(to: entry),
            debugDescription: "expected \(expected), found \(describe(entry))"
        )
        return storage.tag(entry) == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    /// How a value is named in messages: `null`, `number 42`, `string "abc"`, `an object`.
    func describe(_ entry: Int) -> String {
        switch storage.tag(entry) {
        case .null: return "null"
        case .true: return "true"
        case .false: return "false"
        case .number: return "number " + String(decoding: storage.slice(entry), as: UTF8.self)
        case .string:
            let text = storage.string(at: entry)
            var writer = JSONWriter()
            writer.write(string: text.count > 40 ? String(text.prefix(40)) + "…" : text)
            return "string " + writer.text
        case .array: return "an array of \(storage.containerCount(entry))"
        case .object: return "an object"
        }
    }

    /// The coding path from the root to an entry, worked out from the tape.
    func path(to target: Int) -> [any CodingKey] {
        var path = pathPrefix
        var current = root
        while current != target {
            let end = storage.next(current)
            guard target > current, target < end else { break }
            var child = current + 1
            if storage.tag(current) == .array {
                var index = 0
                while storage.next(child) <= target {
                    child = storage.next(child)
                    index += 1
                }
                path.append(JSONPathKey(intValue: index))
                current = child
            } else {
                // Members are key and value pairs; the target is the key entry or inside the value.
                while storage.next(child + 1) <= target {
                    child = storage.next(child + 1)
                }
                // The key the model asked for, as Foundation's paths hold it: under a key decoding strategy, the
                // converted key (`userId`), not the one in the document (`user_id`); but a dictionary's key as
                // written, since the strategy does not apply to it.
                let key =
                    keyConversion && !dictionaryObjects.contains(current)
                    ? convertedKey(at: child, in: current) : storage.string(at: child)
                path.append(JSONPathKey(stringValue: key))
                current = child + 1
                if target == child {
                    break
                }
            }
        }
        return path
    }
}
