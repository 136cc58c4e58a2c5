/// A single-value container over one entry of the tape.
struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder
    let entry: Int

    var codingPath: [any CodingKey] { decoder.path(to: entry) }

    func decodeNil() -> Bool { decoder.storage.tag(entry) == .null }

    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(at: entry) }

    func decode(_ type: String.Type) throws -> String { try decoder.decodeString(at: entry) }

    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeFloatingPoint(type, at: entry) }

    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloatingPoint(type, at: entry) }

    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type, at: entry) }

    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type, at: entry) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // A value decoded through a single-value container stays at the same depth as the container's owner.
        try decoder.decode(type, at: entry, depth: decoder.depth)
    }
}
