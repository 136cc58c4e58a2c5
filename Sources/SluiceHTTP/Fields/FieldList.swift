/// The elements of a field value that is a comma-separated list (RFC 9110, section 5.6.1): `Connection`, `Vary`,
/// `Content-Encoding`, `If-None-Match`, `Sec-WebSocket-Extensions` and the like.
///
/// Each element is handed over without the spaces and tabs around it (the grammar's optional whitespace), compared as
/// bytes: other Unicode spaces are part of the element, as they are to a server that reads the same bytes. Elements
/// are read in place, without copies.
///
/// Where commas separate depends on what the list holds (``Quoting``). A list of tokens (`Connection`, `Vary`,
/// `Transfer-Encoding`) is split at every comma, as servers and proxies split it: a stray quote in it must not hide the
/// elements after it (`Connection: x", close` still says `close`). Entity tags and quoted strings keep their commas.
package enum FieldList {
    /// Which commas separate elements.
    package enum Quoting: Sendable {
        /// Every comma: a list of tokens, or of values that hold no quoted text.
        case none
        /// Commas outside double quotes, with no escapes: entity tags (RFC 9110, section 8.8.3), whose opaque part
        /// may hold a comma or a backslash (`"a,b"`, `"a\"`).
        case entityTags
        /// Commas outside quoted strings, in which a backslash escapes the byte after it (RFC 9110, section 5.6.4):
        /// parameters such as `no-cache="Set-Cookie, Age"`.
        case quotedStrings
    }

    /// Calls `body` with each element of a list, in order.
    ///
    /// - Parameters:
    ///   - value: The field's value; several fields of the same name joined with commas.
    ///   - omittingEmpty: Whether empty elements (`a, , b`) are skipped, as RFC 9110 asks of a recipient.
    ///   - quoting: Which commas separate elements; every one by default.
    ///   - body: What to do with each element.
    /// - Throws: What `body` throws, which ends the list there.
    @inline(__always)
    package static func forEachElement<Failure: Error>(
        of value: some StringProtocol,
        omittingEmpty: Bool = true,
        quoting: Quoting = .none,
        _ body: (Substring) throws(Failure) -> Void
    ) throws(Failure) {
        var rest = Substring(value)
        let quoted = quoting != .none && rest.utf8.contains(UInt8(ascii: "\""))
        while true {
            let comma =
                quoted
                ? separator(in: rest, escapes: quoting == .quotedStrings)
                : rest.utf8.firstIndex(of: UInt8(ascii: ","))
            let element = trimmed(rest[..<(comma ?? rest.endIndex)])
            if !omittingEmpty || !element.isEmpty {
                try body(element)
            }
            guard let comma else { return }
            rest = rest[rest.utf8.index(after: comma)...]
        }
    }

    /// The elements of a list, in order.
    ///
    /// - Parameters:
    ///   - value: The field's value; several fields of the same name joined with commas.
    ///   - omittingEmpty: Whether empty elements are skipped.
    ///   - quoting: Which commas separate elements; every one by default.
    /// - Returns: The elements, trimmed.
    package static func elements(
        of value: some StringProtocol,
        omittingEmpty: Bool = true,
        quoting: Quoting = .none
    ) -> [Substring] {
        var elements: [Substring] = []
        forEachElement(of: value, omittingEmpty: omittingEmpty, quoting: quoting) { elements.append($0) }
        return elements
    }

    /// The text without the spaces and tabs around it; bytes, not characters, so that a combining mark after a
    /// space keeps its place in the value.
    ///
    /// - Parameter text: The text.
    /// - Returns: The text without leading and trailing spaces and tabs.
    package static func trimmed(_ text: Substring) -> Substring {
        let bytes = text.utf8
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isBlank(bytes[start]) {
            start = bytes.index(after: start)
        }
        while end > start, isBlank(bytes[bytes.index(before: end)]) {
            end = bytes.index(before: end)
        }
        return text[start..<end]
    }

    /// The first comma outside double quotes, or `nil`; a quote left open runs to the end of the value.
    ///
    /// - Parameters:
    ///   - text: The rest of the list.
    ///   - escapes: Whether a backslash inside quotes escapes the byte after it.
    /// - Returns: The index of the comma in `text`.
    private static func separator(in text: Substring, escapes: Bool) -> String.Index? {
        var quoted = false
        var escaped = false
        let bytes = text.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if escaped {
                escaped = false
            } else if quoted {
                if escapes && byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                return index
            }
            index = bytes.index(after: index)
        }
        return nil
    }
}
