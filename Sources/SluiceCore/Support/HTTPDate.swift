/// Reads HTTP dates (RFC 9110, 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), and the two obsolete forms a
/// recipient must also accept, RFC 850's `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`.
///
/// One reader for every field that holds a date: `Date`, `Last-Modified`, `Expires`, `If-Modified-Since` and
/// `Retry-After`.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses any of the three forms, leniently: spaces and dashes separate the parts in any number, the weekday is
    /// not read, numbers may have fewer digits, and a two-digit year below 70 is in the 2000s.
    ///
    /// - Parameter text: The field value, without the whitespace around it.
    /// - Returns: The date, or `nil` when the text is none of the forms or names no date.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: [Int]?
        if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {
            // IMF-fixdate or RFC 850: weekday, day, month, year, time, GMT.
            day = Int(parts[1])
            month = months.firstIndex(of: parts[2]).map { $0 + 1 }
            year = Int(parts[3]).map { $0 < 100 ? ($0 < 70 ? 2000 + $0 : 1900 + $0) : $0 }
            time = parts[4].split(separator: ":").compactMap { Int($0) }
        } else if parts.count == 5 {
            // asctime: weekday, month, day, time, year.
            month = months.firstIndex(of: parts[1]).map { $0 + 1 }
            day = Int(parts[2])
            time = parts[3].split(separator: ":").compactMap { Int($0) }
            year = Int(parts[4])
        }
        guard let day, let month, let year, let time, time.count == 3, (1...31).contains(day), time[0] < 24,
            time[1] < 60, time[2] < 61
        else { return nil }
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, time[0], time[1], time[2])
        return text.utf8.withContiguousStorageIfAvailable { ISO8601.date(from: $0) } ?? nil
    }
}
