/// A `Content-Range` field value in bytes (RFC 9110, section 14.4): the range a `206 Partial Content` body holds,
/// `bytes 100-199/1000` or `bytes 100-199/*`, or the length a `416 Range Not Satisfiable` names, `bytes */1000`.
struct ContentRange: Sendable, Hashable {
    /// The first and last byte positions the body holds; `nil` for the unsatisfied form, `*/length`.
    var range: ClosedRange<Int64>?
    /// The length of the whole representation; `nil` when the server wrote `*`.
    var completeLength: Int64?

    /// Parses a field value; `nil` when it is not a byte range of one of the two forms, or its last position is
    /// before its first or not before the complete length.
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].lowercased() == "bytes" else { return nil }
        let parts = trimmed[trimmed.index(after: space)...].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            completeLength = nil
        } else {
            guard let length = ContentRange.position(parts[1]) else { return nil }
            completeLength = length
        }
        if parts[0] == "*" {
            guard completeLength != nil else { return nil }
            range = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = ContentRange.position(bounds[0]),
            let last = ContentRange.position(bounds[1]),
            first <= last, completeLength.map({ last < $0 }) ?? true
        else { return nil }
        range = first...last
    }

    /// A byte position: ASCII digits only, fitting in an `Int64`.
    private static func position(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
