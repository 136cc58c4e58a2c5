/// A JSON document that could not be parsed: what was wrong and where.
///
/// The location is given three ways: the byte offset from the start of the input, and the line and column
/// (both counted from 1; columns count Unicode scalars). ``description`` renders the error like a compiler
/// diagnostic, with the offending line and a caret under the position:
///
/// ```text
/// error: invalid JSON at line 1, column 14 (byte 13): expected a value, found '}'
///  1 | {"id": 1, "x":}
///    |              ^
/// ```
public struct JSONError: Error, Sendable, Hashable {
    /// The kind of a JSON error.
    ///
    /// An open set: compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case emptyInput = "empty input"
            case unexpectedEnd = "unexpected end of input"
            case unexpectedCharacter = "unexpected character"
            case invalidNumber = "invalid number"
            case invalidString = "invalid string"
            case invalidEscape = "invalid escape sequence"
            case invalidUnicode = "invalid unicode escape"
            case invalidUTF8 = "invalid UTF-8"
            case invalidEncoding = "invalid UTF-16 or UTF-32"
            case trailingContent = "trailing content"
            case depthLimitExceeded = "nesting too deep"
            case sizeLimitExceeded = "document too large"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The input holds no JSON value, only whitespace or nothing.
        public static let emptyInput = Code(.emptyInput)
        /// The input ends inside a value.
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// A character that cannot start or continue the value at that position.
        public static let unexpectedCharacter = Code(.unexpectedCharacter)
        /// A number that breaks the grammar of RFC 8259, 6: a leading zero, a missing digit.
        public static let invalidNumber = Code(.invalidNumber)
        /// A string holding an unescaped control character.
        public static let invalidString = Code(.invalidString)
        /// A backslash followed by a character that does not start an escape.
        public static let invalidEscape = Code(.invalidEscape)
        /// A `\u` escape with bad hexadecimal digits, or a surrogate without its pair.
        public static let invalidUnicode = Code(.invalidUnicode)
        /// Bytes that are not well-formed UTF-8 (RFC 8259, 8.1).
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// A UTF-16 or UTF-32 document with a code unit that is not well formed: a lone surrogate, a value beyond
        /// U+10FFFF, or bytes that end inside a unit.
        public static let invalidEncoding = Code(.invalidEncoding)
        /// Something other than whitespace after the value.
        public static let trailingContent = Code(.trailingContent)
        /// Arrays and objects nested deeper than the deserializer's limit.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// Input larger than the deserializer's limit.
        public static let sizeLimitExceeded = Code(.sizeLimitExceeded)

        /// A short name for the kind, such as `invalid number`.
        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public let code: Code
    /// What was expected and what was found, such as `expected ',' or ']' after an array element, found '}'`.
    public let reason: String
    /// The offset of the offending byte from the start of the input, counted from 0.
    public let offset: Int
    /// The line of the offending byte, counted from 1.
    public let line: Int
    /// The column of the offending byte within its line, counted in Unicode scalars from 1.
    public let column: Int
    /// The line of the input that holds the error, shortened around the column when long.
    public let sourceLine: String
    /// The column of the caret within ``sourceLine``, counted from 1.
    package let excerptColumn: Int

    /// Locates an error in some UTF-8 text.
    ///
    /// - Parameters:
    ///   - code: The kind of error.
    ///   - reason: What was expected and what was found.
    ///   - offset: Where the error is in `input`.
    ///   - input: The text, for the line, the column and the excerpt.
    ///   - inputOffset: The offset to report when `input` is not the bytes the caller gave (a UTF-16 document
    ///     transcoded to UTF-8); `offset` by default.
    init(
        _ code: Code,
        _ reason: String,
        at offset: Int,
        in input: UnsafeBufferPointer<UInt8>,
        inputOffset: Int? = nil
    ) {
        self.code = code
        self.reason = reason
        let offset = min(max(offset, 0), input.count)
        self.offset = inputOffset ?? offset
        var line = 1
        var lineStart = 0
        // A line ends at a line feed, a carriage return, or the pair of them, which counts once.
        for index in 0..<offset {
            let byte = input[index]
            let endsLine =
                byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r") && (index + 1 == input.count || input[index + 1] != UInt8(ascii: "\n")))
            if endsLine {
                line += 1
                lineStart = index + 1
            }
        }
        var lineEnd = offset
        while lineEnd < input.count, input[lineEnd] != UInt8(ascii: "\n"), input[lineEnd] != UInt8(ascii: "\r") {
            lineEnd += 1
        }
        let before = JSONError.scalars(UnsafeBufferPointer(rebasing: input[lineStart..<offset]))
        let after = JSONError.scalars(UnsafeBufferPointer(rebasing: input[offset..<lineEnd]))
        self.line = line
        self.column = before.count + 1
        // Keep the excerpt to a screen's width: 40 scalars before the caret and 30 after.
        let head = before.count > 40 ? ["…"] + before.suffix(40) : before[...]
        let tail = after.count > 30 ? after.prefix(30) + ["…"] : after[...]
        self.sourceLine = (head + tail).joined()
        self.excerptColumn = head.count + 1
    }

    /// The printable form of each scalar in some UTF-8 bytes: controls become spaces, invalid bytes `\u{FFFD}`.
    private static func scalars(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? " " : String(scalar)
        }
    }

    /// How a character outside ASCII is named in a message: `'é' (U+00E9)`, or only `U+00A0` when it does not show
    /// (spaces, controls, format characters).
    static func describe(scalar: Unicode.Scalar) -> String {
        let codePoint = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        switch scalar.properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format, .surrogate, .privateUse,
            .unassigned, .nonspacingMark, .enclosingMark, .spacingMark:
            return codePoint
        default:
            return "'\(scalar)' (\(codePoint))"
        }
    }

    /// How a byte of the input is named in a message: `'x'`, or `byte 0x01` when it is not printable ASCII.
    static func describe(byte: UInt8) -> String {
        switch byte {
        case 0x20..<0x7F: "'\(Character(Unicode.Scalar(byte)))'"
        default: "byte 0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
    }
}

extension JSONError: CustomStringConvertible {
    /// The error as a compiler-style diagnostic: a headline with the location, then the line and a caret.
    public var description: String {
        (["error: invalid JSON at line \(line), column \(column) (byte \(offset)): \(reason)"]
            + QuotedSource.lines(number: line, source: sourceLine, caretColumn: excerptColumn))
            .joined(separator: "\n")
    }
}

extension JSONError: LocalizedError {
    /// The diagnostic, for `localizedDescription`.
    public var errorDescription: String? { description }
}

extension String {
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
