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

    /// The current element's entry, without moving past it; `valueNotFound` at the end.
    @inline(__always)
    private func current(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [JSONPathKey(intValue: currentIndex)],
                    debugDescription: "expected \(type), found the end of an array of \(count ?? 0)"
                )
            )
        }
        return element
    }

    /// Moves past the current element and returns what was read from it.
    ///
    /// Called only once the element was read, so that a caller who catches a failed read can read the same element
    /// again as another type, as with Foundation's decoder.
    @inline(__always)
    private mutating func advancing<T>(_ value: T) -> T {
        element = decoder.storage.next(element)
        currentIndex += 1
        return value
    }

    /// Whether the current element is `null`, moving past it when it is; `valueNotFound` at the end, as with
    /// Foundation's decoder.
    mutating func decodeNil() throws -> Bool {
        guard decoder.storage.tag(try current(Never.self)) == .null else { return false }
        return advancing(true)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try advancing(decoder.decodeBool(at: current(type))) }

    mutating func decode(_ type: String.Type) throws -> String {
        try advancing(decoder.decodeString(at: current(type)))
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try advancing(decoder.decodeFloatingPoint(type, at: current(type)))
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try advancing(decoder.decodeFloatingPoint(type, at: current(type)))
    }

    mutating func decode(_ type: Int.Type) throws -> Int {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: Int8.Type) throws -> Int8 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: Int16.Type) throws -> Int16 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: Int32.Type) throws -> Int32 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: Int64.Type) throws -> Int64 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: UInt.Type) throws -> UInt {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
        try advancing(decoder.decodeInteger(type, at: current(type)))
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try advancing(decoder.decode(type, at: current(type), depth: depth + 1))
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if isAtEnd {
            return nil
        }
        if try decodeNil() {
            return nil
        }
        return try decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let entry = try current(type)
        guard decoder.storage.tag(entry) == .object else {
            throw decoder.mismatch(expected: "an object", NestedKey.self, at: entry)
        }
        return advancing(
            KeyedDecodingContainer(TapeKeyedContainer<NestedKey>(decoder: decoder, object: entry, depth: depth + 1))
        )
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = try current([Any].self)
        guard decoder.storage.tag(entry) == .array else {
            throw decoder.mismatch(expected: "an array", [Any].self, at: entry)
        }
        return advancing(TapeUnkeyedContainer(decoder: decoder, array: entry, depth: depth + 1))
    }

    mutating func superDecoder() throws -> any Decoder {
        try advancing(decoder.detached(at: current((any Decoder).self)))
    }
}
