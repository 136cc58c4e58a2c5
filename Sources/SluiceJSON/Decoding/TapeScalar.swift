/// The scalar types the decoder reads straight from a tape entry.
protocol TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Self
    /// An array of the type read from a tape entry.
    ///
    /// A requirement, with the default implementation below, so that each scalar type's witness is the array code
    /// specialized for it: the same code reached generically through `Array` fetches the metadata of
    /// `[Element]`'s storage from the runtime's cache for every array decoded.
    static func readArray(from decoder: TapeDecoder, at entry: Int) throws -> [Self]
}

extension TapeScalar {
    static func readArray(from decoder: TapeDecoder, at entry: Int) throws -> [Self] {
        // Appended, not made in place as `decodeElements` makes models: specialized for a scalar, `append` is
        // inlined, and the same loop through `Array(unsafeUninitializedCapacity:)` decoded canada 15% slower.
        let storage = decoder.storage
        let count = storage.containerCount(entry)
        var result: [Self] = []
        result.reserveCapacity(count)
        var element = entry + 1
        for _ in 0..<count {
            result.append(try read(from: decoder, at: element))
            element = storage.next(element)
        }
        return result
    }
}

extension Bool: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Bool { try decoder.decodeBool(at: entry) }
}

extension String: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> String { try decoder.decodeString(at: entry) }
}

extension Double: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Double {
        try decoder.decodeFloatingPoint(Double.self, at: entry)
    }
}

extension Float: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Float {
        try decoder.decodeFloatingPoint(Float.self, at: entry)
    }
}

extension Int: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Int {
        try decoder.decodeInteger(Int.self, at: entry)
    }
}

extension Int32: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Int32 {
        try decoder.decodeInteger(Int32.self, at: entry)
    }
}

extension Int64: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> Int64 {
        try decoder.decodeInteger(Int64.self, at: entry)
    }
}

extension UInt64: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> UInt64 {
        try decoder.decodeInteger(UInt64.self, at: entry)
    }
}

extension UInt8: TapeScalar {
    static func read(from decoder: TapeDecoder, at entry: Int) throws -> UInt8 {
        try decoder.decodeInteger(UInt8.self, at: entry)
    }
}

/// Arrays of scalars, which the decoder fills in one pass over the tape instead of through an unkeyed container.
protocol TapeScalarArray {
    static func decodeScalars(from decoder: TapeDecoder, at entry: Int) throws -> Self
}

extension Array: TapeScalarArray where Element: TapeScalar {
    static func decodeScalars(from decoder: TapeDecoder, at entry: Int) throws -> [Element] {
        try Element.readArray(from: decoder, at: entry)
    }
}

/// Arrays of any decodable elements, which the decoder fills straight from the tape: one allocation of the right
/// size, and no unkeyed container.
protocol TapeArray {
    static func decodeElements(from decoder: TapeDecoder, at entry: Int, depth: Int) throws -> Self
}

extension Array: TapeArray where Element: Decodable {
    static func decodeElements(from decoder: TapeDecoder, at entry: Int, depth: Int) throws -> [Element] {
        let storage = decoder.storage
        let count = storage.containerCount(entry)
        // Not through `unsafeUninitializedCapacity` when empty: given no capacity, it writes the count into the
        // standard library's one shared empty array, which the thread sanitizer reports as a race between decodes.
        guard count > 0 else { return [] }
        // Each element is decoded into its place: this code is generic over `Element`, and `append` would copy it
        // there through the type's value witnesses, and check the capacity, once more for each element.
        return try [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            var element = entry + 1
            while initialized < count {
                buffer.initializeElement(
                    at: initialized,
                    to: try decoder.decode(Element.self, at: element, depth: depth + 1)
                )
                initialized += 1
                element = storage.next(element)
            }
        }
    }
}
