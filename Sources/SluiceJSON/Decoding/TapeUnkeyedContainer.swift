/// An unkeyed container over one array of the tape, read in order.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let array: Int
    let depth: Int
    let count: Int?
    private(set) var currentIndex = 0
    /// The entry of the element at `currentIndex`.
    private var element: Int

    init(decoder: TapeDecoder, array: Int, depth: Int) {
        self.decoder = decoder
        self.array = array
        self.depth = depth
        self.count = decoder.storage.containerCount(array)
        self.element = array + 1
    }

    var codingPath: [any CodingKey] { decoder.path(to: array) }

    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    /// The current element's entry, moving past it; `valueNotFound` at the end.
    @inline(__always)
    private mutating func next<T>(_ type: T.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [JSONPathKey(intValue: currentIndex)],
                    debugDescription: "expected \(type), found the end of an array of \(count ?? 0)"
                )
            )
        }
        let entry = element
        element = decoder.storage.next(entry)
        currentIndex += 1
        return entry
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.storage.tag(element) == .null else { return false }
        _ = try next(Never.self)
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(at: next(type)) }

    mutating func decode(_ type: String.Type) throws -> String { try decoder.decodeString(at: next(type)) }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try decoder.decodeFloatingPoint(type, at: next(type))
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try decoder.decodeFloatingPoint(type, at: next(type))
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type, at: next(type)) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(type, at: next(type), depth: depth + 1)
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if try decodeNil() {
            return nil
        }
        return try decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try next(type)
        guard decoder.storage.tag(entry) == .object else {
            throw decoder.mismatch(expected: "an object", NestedKey.self, at: entry)
        }
        return KeyedDecodingContainer(TapeKeyedContainer<NestedKey>(decoder: decoder, object: entry, depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = try next([Any].self)
        guard decoder.storage.tag(entry) == .array else {
            throw decoder.mismatch(expected: "an array", [Any].self, at: entry)
        }
        return TapeUnkeyedContainer(decoder: decoder, array: entry, depth: depth + 1)
    }

    mutating func superDecoder() throws -> any Decoder {
        decoder.detached(at: try next((any Decoder).self))
    }
}
