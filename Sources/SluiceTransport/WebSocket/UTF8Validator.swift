/// Checks UTF-8 as it arrives in pieces split anywhere, rejecting a sequence at its first byte that cannot continue a
/// valid one (overlong forms, surrogates, code points past U+10FFFF), as the Unicode Standard's table 3-7 reads.
///
/// A text message is checked frame by frame, so that an invalid sequence fails the message at once, even in the
/// middle of a fragment, not when the message has been read to its end.
package struct UTF8Validator {
    /// The continuation bytes the sequence under way still needs.
    private var needed = 0
    /// The range of the next continuation byte: narrower than 0x80...0xBF right after some leading bytes.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Creates a validator at the start of a text.
    package init() {}

    /// Whether the bytes so far end on a whole character.
    package var isComplete: Bool { needed == 0 }

    /// Checks the next bytes.
    ///
    /// - Parameter bytes: The bytes, following those checked before.
    /// - Returns: The index in `bytes` of the first byte that makes the text invalid, or `nil` when all are valid so
    ///   far.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if needed == 0 {
                switch byte {
                case 0x00...0x7F: break
                case 0xC2...0xDF: needed = 1
                case 0xE0: (needed, lower) = (2, 0xA0)
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: (needed, upper) = (2, 0x9F)
                case 0xF0: (needed, lower) = (3, 0x90)
                case 0xF1...0xF3: needed = 3
                case 0xF4: (needed, upper) = (3, 0x8F)
                default: return index
                }
            } else {
                guard byte >= lower && byte <= upper else { return index }
                (lower, upper) = (0x80, 0xBF)
                needed -= 1
            }
            index += 1
        }
        return nil
    }
}
