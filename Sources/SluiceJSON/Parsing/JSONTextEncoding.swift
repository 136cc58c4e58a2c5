/// The Unicode encoding of a JSON document's bytes.
///
/// RFC 8259 requires UTF-8 between systems, but documents in UTF-16 and UTF-32 still arrive from some stacks, and
/// Foundation's decoders read them. The encoding is told by a byte order mark or, without one, by where the first
/// four bytes hold zeros: a document starts with an ASCII character, so its first code unit has zero high bytes
/// (RFC 4627, section 3).
enum JSONTextEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)
    case utf32(bigEndian: Bool)

    /// The offset in the input of the character at `offset` in its text transcoded to UTF-8.
    ///
    /// - Parameters:
    ///   - offset: An offset in `text`, up to its length.
    ///   - text: The input's text in UTF-8, as ``utf8(of:skipping:)`` wrote it (so well formed).
    ///   - markLength: The length of the byte order mark that the text leaves out.
    /// - Returns: The offset of the same character in the input, in bytes.
    func inputOffset(of offset: Int, in text: UnsafeBufferPointer<UInt8>, markLength: Int) -> Int {
        var inputOffset = markLength
        for byte in text[..<min(offset, text.count)] where byte & 0xC0 != 0x80 {
            switch self {
            case .utf8: inputOffset += 1
            // A scalar beyond the Basic Multilingual Plane (four bytes in UTF-8) takes a surrogate pair.
            case .utf16: inputOffset += byte >= 0xF0 ? 4 : 2
            case .utf32: inputOffset += 4
            }
        }
        return self == .utf8 ? markLength + offset : inputOffset
    }

    /// The encoding of some bytes, and the length of the byte order mark that announced it (0 when none did).
    static func detect(_ bytes: UnsafeRawBufferPointer) -> (encoding: JSONTextEncoding, markLength: Int) {
        let count = bytes.count
        func byte(_ index: Int) -> UInt8? { index < count ? bytes[index] : nil }
        switch (byte(0), byte(1), byte(2), byte(3)) {
        case (0x00, 0x00, 0xFE, 0xFF): return (.utf32(bigEndian: true), 4)
        case (0xFF, 0xFE, 0x00, 0x00): return (.utf32(bigEndian: false), 4)
        case (0xFE, 0xFF, _, _): return (.utf16(bigEndian: true), 2)
        case (0xFF, 0xFE, _, _): return (.utf16(bigEndian: false), 2)
        // Without a mark, only whole code units: a NUL byte in what is otherwise UTF-8 text is reported as such.
        case (0x00, 0x00, 0x00, .some(let fourth)) where fourth != 0 && count % 4 == 0:
            return (.utf32(bigEndian: true), 0)
        case (.some(let first), 0x00, 0x00, 0x00) where first != 0 && count % 4 == 0:
            return (.utf32(bigEndian: false), 0)
        case (0x00, .some(let second), _, _) where second != 0 && count % 2 == 0:
            return (.utf16(bigEndian: true), 0)
        case (.some(let first), 0x00, _, _) where first != 0 && count % 2 == 0:
            return (.utf16(bigEndian: false), 0)
        default:
            return (.utf8, 0)
        }
    }

    /// The document's text in UTF-8, without the byte order mark.
    ///
    /// - Throws: ``JSONError/Code/invalidEncoding`` at the offset of the first code unit that is not well formed
    ///   (a lone surrogate, a value beyond U+10FFFF, a truncated unit).
    func utf8(of bytes: UnsafeRawBufferPointer, skipping markLength: Int) throws(JSONError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        switch self {
        case .utf8:
            output.append(contentsOf: bytes[markLength...])
        case .utf16(let bigEndian):
            var units = CodeUnits<UInt16>(bytes: bytes, start: markLength, bigEndian: bigEndian)
            try Self.transcode(&units, as: UTF16.self, into: &output, name: "UTF-16")
        case .utf32(let bigEndian):
            var units = CodeUnits<UInt32>(bytes: bytes, start: markLength, bigEndian: bigEndian)
            try Self.transcode(&units, as: UTF32.self, into: &output, name: "UTF-32")
        }
        return output
    }

    private static func transcode<Codec: UnicodeCodec, Unit: FixedWidthInteger>(
        _ units: inout CodeUnits<Unit>,
        as codec: Codec.Type,
        into output: inout [UInt8],
        name: String
    ) throws(JSONError) where Codec.CodeUnit == Unit {
        var decoder = Codec()
        while true {
            let start = units.offset
            switch decoder.decode(&units) {
            case .scalarValue(let scalar):
                output.append(contentsOf: String(scalar).utf8)
            case .emptyInput:
                guard units.trailingBytes == 0 else {
                    throw .encoding("bytes that end inside a code unit", name, at: start, after: output)
                }
                return
            case .error:
                throw .encoding("a code unit that is not well formed", name, at: start, after: output)
            }
        }
    }
}

/// The code units of a UTF-16 or UTF-32 document, read in its byte order.
private struct CodeUnits<Unit: FixedWidthInteger>: IteratorProtocol {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let bigEndian: Bool

    init(bytes: UnsafeRawBufferPointer, start: Int, bigEndian: Bool) {
        self.bytes = bytes
        self.offset = start
        self.bigEndian = bigEndian
    }

    /// The bytes after the last whole code unit.
    var trailingBytes: Int { bytes.count - offset }

    mutating func next() -> Unit? {
        let width = MemoryLayout<Unit>.size
        guard offset + width <= bytes.count else { return nil }
        var value: Unit = 0
        for index in 0..<width {
            let byte = Unit(bytes[offset + (bigEndian ? index : width - 1 - index)])
            value = value << 8 | byte
        }
        offset += width
        return value
    }
}

extension JSONError {
    /// An error in a UTF-16 or UTF-32 document's encoding: at a byte offset of the input, and at the line and
    /// column that follow the text read before it.
    fileprivate static func encoding(
        _ reason: String,
        _ name: String,
        at offset: Int,
        after text: [UInt8]
    ) -> JSONError {
        text.withUnsafeBufferPointer { text in
            JSONError(
                .invalidEncoding,
                "expected \(name) text, found \(reason)",
                at: text.count,
                in: text,
                inputOffset: offset
            )
        }
    }
}
