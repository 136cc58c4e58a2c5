/// A stream of lines, server-sent events or JSON Lines that could not be read: what was wrong and on which line.
///
/// A typed stream that meets one ends; the line is counted from 1 over the whole stream, blank lines
/// included, so it is the line a text editor would show. ``description`` renders it like a compiler diagnostic,
/// with the line and a caret under the column when the problem has one:
///
/// ```text
/// error: invalid JSON: expected a string key, found '}'
///   --> stream line 3, column 10
///    |
///  3 | {"id": 3,}
///    |          ^
/// ```
///
/// A ``ResponseStream`` that fails this way throws a ``SluiceError`` of the deserialize stage (the parse stage for a
/// record of the wrong shape) with this error as its ``SluiceError/underlyingError``, as the client wraps a
/// ``JSONError`` at the deserialize stage:
///
/// ```swift
/// do {
///     for try await entry in try await client.jsonLines(ExportAudit(), of: AuditEntry.self) {
///         print(entry.action)
///     }
/// } catch let error as SluiceError {
///     if let parseError = error.underlyingError as? StreamParseError {
///         print(parseError.line, parseError.code)
///     }
/// }
/// ```
///
/// New codes may be added; compare ``code`` against the static members rather than switching exhaustively.
public struct StreamParseError: Error, Sendable {
    /// What went wrong.
    ///
    /// An open set: compare against the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable {
            case lineTooLong = "line too long"
            case eventTooLarge = "event too large"
            case invalidJSON = "invalid JSON"
            case decodingFailed = "decoding failed"
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A line is longer than the stream's limit.
        public static let lineTooLong = Code(.lineTooLong)
        /// The data of one server-sent event is larger than the stream's limit.
        public static let eventTooLarge = Code(.eventTooLarge)
        /// A line of a JSON Lines stream is not valid JSON; ``StreamParseError/underlyingError`` is the
        /// ``JSONError``.
        public static let invalidJSON = Code(.invalidJSON)
        /// A line of a JSON Lines stream is valid JSON of the wrong shape; ``StreamParseError/underlyingError`` is
        /// the `DecodingError`.
        public static let decodingFailed = Code(.decodingFailed)

        /// The code's name, such as `line too long`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A one-line account of the failure, such as `line 3 is longer than the limit of 1048576 bytes`.
    public let message: String
    /// The line of the stream where the problem is, counted from 1.
    public let line: Int
    /// The column of the problem within its line, counted in Unicode scalars from 1, when it has one.
    public let column: Int?
    /// The line's text, shortened around the column when long, when the problem has a column.
    public let sourceLine: String?
    /// The JSON path of the value that did not decode, such as `$.items[2].id`, for
    /// ``Code/decodingFailed``.
    public let jsonPath: String?
    /// The error underneath: the ``JSONError`` or the `DecodingError` of a JSON Lines record.
    public let underlyingError: (any Error)?
    /// The column of the caret within ``sourceLine``.
    private let excerptColumn: Int

    private init(
        _ code: Code,
        message: String,
        line: Int,
        column: Int? = nil,
        sourceLine: String? = nil,
        excerptColumn: Int = 1,
        jsonPath: String? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.sourceLine = sourceLine
        self.excerptColumn = excerptColumn
        self.jsonPath = jsonPath
        self.underlyingError = underlyingError
    }

    static func lineTooLong(line: Int, limit: Int) -> StreamParseError {
        StreamParseError(.lineTooLong, message: "line \(line) is longer than the limit of \(limit) bytes", line: line)
    }

    static func eventTooLarge(line: Int, limit: Int) -> StreamParseError {
        StreamParseError(
            .eventTooLarge,
            message: "the data of the event at line \(line) is larger than the limit of \(limit) bytes",
            line: line
        )
    }

    static func invalidJSON(_ error: JSONError, line: Int) -> StreamParseError {
        StreamParseError(
            .invalidJSON,
            message: "invalid JSON: \(error.reason)",
            line: line,
            column: error.column,
            sourceLine: error.sourceLine,
            excerptColumn: error.excerptColumn,
            underlyingError: error
        )
    }

    static func decodingFailed(
        _ error: DecodingError,
        type: Any.Type,
        line: Int,
        text: some Collection<UInt8>
    ) -> StreamParseError {
        StreamParseError(
            .decodingFailed,
            message: "cannot decode \(type): \(SluiceError.describe(error))",
            line: line,
            sourceLine: String(excerptOf: text, limit: 120),
            jsonPath: JSONPath.render(SluiceError.fullPath(of: error)),
            underlyingError: error
        )
    }
}

extension StreamParseError: CustomStringConvertible {
    /// The error as a compiler-style diagnostic: what went wrong, the line and column, then the line itself with
    /// a caret under the column.
    public var description: String {
        var location = "  --> stream line \(line)"
        if let column {
            location += ", column \(column)"
        }
        if let jsonPath {
            location += " at \(jsonPath)"
        }
        var lines = ["error: \(message)", location]
        if let sourceLine {
            lines.append(" \(QuotedSource.margin(for: line)) |")
            let caret = column == nil ? nil : excerptColumn
            lines += QuotedSource.lines(number: line, source: sourceLine, caretColumn: caret)
        }
        return lines.joined(separator: "\n")
    }
}

extension StreamParseError: LocalizedError {
    /// The diagnostic, for `localizedDescription`.
    public var errorDescription: String? { description }
}
