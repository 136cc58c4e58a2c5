/// The immutable storage of a parsed JSON document: a copy of the source bytes and a tape that indexes every
/// value in them.
///
/// The tape holds three 32-bit words per value, in document order (an object's members are its key and value
/// entries, alternating):
///
/// - word 0: the byte offset of the value in the source (for a string, the offset of its first byte after the
///   opening quote);
/// - word 1: the tag in bits 29 to 31, flags in bits 24 to 28, and, for an array or an object, its element count
///   (members for an object) in bits 0 to 23, or ``countOverflow`` when the count does not fit there;
/// - word 2: for a string or number, its length in bytes (a string's without the quotes); for an array or an
///   object, the index of the entry after its last descendant; unused for the literals.
///
/// Twelve bytes an entry keep the tape smaller than most documents (a value every twelve bytes or more), so that
/// a parse's peak, the copy of the bytes and the tape, stays under twice the document; 32-bit offsets limit a
/// document to ``maximumByteCount``.
///
/// Values are read lazily from the source: a string is unescaped and a number converted when asked for.
///
/// `@unchecked Sendable`: both buffers are written once, while the parser builds the storage, and never again;
/// they are freed in `deinit`. Sharing immutable memory between threads is safe.
final class JSONStorage: @unchecked Sendable {
    /// The source bytes, followed by ``padding`` zero bytes so that scanning may read past the end in words.
    let bytes: UnsafeMutablePointer<UInt8>
    /// The number of source bytes, without the padding.
    let byteCount: Int
    /// The tape, three words per entry.
    let tape: UnsafeMutablePointer<UInt32>
    /// The number of entries on the tape.
    let entryCount: Int

    /// How many zero bytes follow the source, so that the scanner can load 8 and 16 bytes at any position.
    static let padding = 64

    /// The largest document the tape can index: offsets and lengths are 32-bit, and the padding follows the bytes.
    static let maximumByteCount = Int(UInt32.max) - padding

    /// Words a tape entry takes: its offset in the bytes; its tag, flags and element count; its length or the entry
    /// after it.
    static let entryWords = 3

    /// Where in a tape word `word` (0, 1 or 2) of an entry is.
    @inline(__always)
    static func word(_ word: Int, of entry: Int) -> Int {
        entryWords &* entry &+ word
    }

    /// The shifts of an entry's tag (3 bits) and flags (5 bits) in its word 1, above its 24-bit element count.
    static let tagShift: UInt32 = 29
    static let flagsShift: UInt32 = 24

    /// The element count stored for a container whose count does not fit in 24 bits; see ``containerCount(_:)``.
    static let countOverflow: UInt32 = 0xFF_FFFF

    /// The sizes of the two buffers as allocated, which ``JSONBufferRecycler`` keeps them by.
    private let bytesSize: Int
    private let tapeSize: Int

    init(
        bytes: (pointer: UnsafeMutablePointer<UInt8>, size: Int),
        byteCount: Int,
        tape: (pointer: UnsafeMutablePointer<UInt32>, size: Int),
        entryCount: Int
    ) {
        self.bytes = bytes.pointer
        self.bytesSize = bytes.size
        self.byteCount = byteCount
        self.tape = tape.pointer
        self.tapeSize = tape.size
        self.entryCount = entryCount
    }

    deinit {
        // Both buffers come from `JSONBufferRecycler.allocate`, the tape perhaps shrunk with `realloc`.
        JSONBufferRecycler.release(UnsafeMutableRawPointer(bytes), size: bytesSize)
        JSONBufferRecycler.release(UnsafeMutableRawPointer(tape), size: tapeSize)
    }

    // MARK: - Entry layout

    enum Tag: UInt8 {
        case null = 1
        case `true` = 2
        case `false` = 3
        case number = 4
        case string = 5
        case array = 6
        case object = 7
    }

    /// Flag on a string entry: the string contains escape sequences.
    static let stringHasEscapes: UInt8 = 1
    /// Flag on a string entry: the string is all ASCII.
    static let stringIsASCII: UInt8 = 2
    /// Flag on a number entry: the number has neither a fraction nor an exponent.
    static let numberIsInteger: UInt8 = 1
    /// Flag on a number entry: the number starts with a minus sign.
    static let numberIsNegative: UInt8 = 2

    @inline(__always)
    func tag(_ entry: Int) -> Tag {
        // Every entry is written by the parser with a valid tag.
        Tag(rawValue: UInt8(truncatingIfNeeded: tape[JSONStorage.word(1, of: entry)] &>> JSONStorage.tagShift)) ?? .null
    }

    @inline(__always)
    func flags(_ entry: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: tape[JSONStorage.word(1, of: entry)] &>> JSONStorage.flagsShift) & 0x1F
    }

    @inline(__always)
    func offset(_ entry: Int) -> Int {
        Int(truncatingIfNeeded: tape[JSONStorage.word(0, of: entry)])
    }

    /// The length in bytes of a string or number entry.
    @inline(__always)
    func length(_ entry: Int) -> Int {
        Int(truncatingIfNeeded: tape[JSONStorage.word(2, of: entry)])
    }

    /// The element count of an array or member count of an object.
    ///
    /// Counts of 2^24 - 1 or more are not stored: they are counted on the tape, once per call, which a container
    /// that large amortizes.
    @inline(__always)
    func containerCount(_ entry: Int) -> Int {
        let stored = tape[JSONStorage.word(1, of: entry)] & JSONStorage.countOverflow
        guard stored == JSONStorage.countOverflow else { return Int(truncatingIfNeeded: stored) }
        return countChildren(entry)
    }

    private func countChildren(_ entry: Int) -> Int {
        let end = next(entry)
        var child = entry &+ 1
        var children = 0
        while child < end {
            children &+= 1
            child = next(child)
        }
        return tag(entry) == .object ? children / 2 : children
    }

    /// The index of the entry after a value and all its descendants.
    @inline(__always)
    func next(_ entry: Int) -> Int {
        let tag = tape[JSONStorage.word(1, of: entry)] &>> JSONStorage.tagShift
        if tag >= UInt32(Tag.array.rawValue) {
            return Int(truncatingIfNeeded: tape[JSONStorage.word(2, of: entry)])
        }
        return entry &+ 1
    }

    /// The source bytes of a string (without quotes, still escaped) or number entry.
    @inline(__always)
    func slice(_ entry: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: bytes + offset(entry), count: length(entry))
    }

    /// The byte offset just past the value in the source.
    func endOffset(_ entry: Int) -> Int {
        switch tag(entry) {
        case .null, .true: offset(entry) + 4
        case .false: offset(entry) + 5
        case .number: offset(entry) + length(entry)
        case .string: offset(entry) + length(entry) + 1
        case .array, .object:
            // The closing bracket is the first one after the last descendant's end.
            closingBracketOffset(entry)
        }
    }

    private func closingBracketOffset(_ entry: Int) -> Int {
        // Past the last direct child (or the opening bracket when empty), skip whitespace to the closer.
        let after = next(entry)
        var child = entry + 1
        var lastChild: Int?
        while child < after {
            lastChild = child
            child = next(child)
        }
        var position = lastChild.map(endOffset) ?? offset(entry) + 1
        let closer = tag(entry) == .array ? UInt8(ascii: "]") : UInt8(ascii: "}")
        while position < byteCount, bytes[position] != closer {
            position += 1
        }
        return position + 1
    }
}
