/// The lines of a compiler-style diagnostic that quote the source: the line with its number in the gutter, then a
/// caret under the column.
///
/// ```text
///  3 | {"id": 3,}
///    |          ^
/// ```
///
/// The one rendering of a quoted line for every error that shows one: ``JSONError``, and the client's errors that
/// carry one (a stream's, the pipeline's).
package enum QuotedSource {
    /// The gutter's blank margin for a line number: as many spaces as the number has digits.
    ///
    /// - Parameter number: The line number shown in the gutter.
    /// - Returns: The spaces.
    package static func margin(for number: Int) -> String {
        String(repeating: " ", count: String(number).count)
    }

    /// The numbered line and, when there is a column, the caret line under it.
    ///
    /// - Parameters:
    ///   - number: The line's number, counted from 1.
    ///   - source: The line, or the excerpt of it that is shown.
    ///   - caretColumn: The column of the caret within `source`, counted from 1; `nil` for none.
    /// - Returns: One or two lines, without line breaks.
    package static func lines(number: Int, source: String, caretColumn: Int?) -> [String] {
        var lines = [" \(number) | \(source)"]
        if let caretColumn {
            lines.append(" \(margin(for: number)) | " + String(repeating: " ", count: caretColumn - 1) + "^")
        }
        return lines
    }
}
