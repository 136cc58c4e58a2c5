/// Reads a `Retry-After` value (RFC 9110, 10.2.3): a number of seconds, or an HTTP date in any of its three forms.
enum RetryAfter {
    /// The wait a `Retry-After` value asks for, from `now`; `nil` when the value is neither form.
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = httpDate(trimmed) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete `Sunday, 06-Nov-94 08:49:37 GMT` and the asctime
    /// form `Sun Nov  6 08:49:37 1994`.
    static func httpDate(_ text: String) -> Date? {
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
