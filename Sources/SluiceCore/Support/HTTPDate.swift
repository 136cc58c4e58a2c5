/// Reads HTTP dates (RFC 9110, 5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate), and the two obsolete forms a
/// recipient must also accept, RFC 850's `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`.
///
/// ``parse(_:)`` is lenient, for the fields where a date a server got slightly wrong is still the best information
/// there is (`Date`, `Last-Modified`, `If-Modified-Since`, `Retry-After`). ``parseExactly(_:receivedAt:)`` takes the
/// grammar as written, for `Expires`, where a cache must take a value that is not a valid date as a time in the past
/// (RFC 9111, 5.3).
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let lowercasedMonths = months.map { Header.asciiLowercased($0) }
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longWeekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

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
        guard let day, let month, let year, let time, time.count == 3 else { return nil }
        return date(year: year, month: month, day: day, hour: time[0], minute: time[1], second: time[2])
    }

    /// Parses the three forms exactly as RFC 9110 writes them: single spaces, two-digit days, hours, minutes and
    /// seconds (asctime's day may be a space and one digit), a four-digit year (two digits in RFC 850's form), `GMT`,
    /// and nothing around them.
    ///
    /// Weekday and month names, and `GMT`, match in any case, as a cache should match them (RFC 9111, 4.2); the
    /// weekday is not checked against the date. An RFC 850 two-digit year is the one within 50 years of the year the
    /// value was received in (RFC 9110, 5.6.7).
    ///
    /// - Parameters:
    ///   - text: The field value, without the whitespace around it.
    ///   - received: When the value was received, which places an RFC 850 two-digit year in its century.
    /// - Returns: The date, or `nil` when the text is not one of the forms or names no date.
    static func parseExactly(_ text: String, receivedAt received: Date) -> Date? {
        var reader = Reader(Array(text.utf8))
        let weekday = reader.letters()
        let day: Int
        let month: Int
        let year: Int
        let time: (hour: Int, minute: Int, second: Int)
        if weekdays.contains(weekday), reader.take(", ") {
            // IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
            guard let twoDigitDay = reader.digits(2), reader.take(" "), let named = monthNumber(reader.letters()),
                reader.take(" "), let fourDigitYear = reader.digits(4), reader.take(" "), let clock = reader.time(),
                reader.take(" gmt"), reader.isAtEnd
            else { return nil }
            (day, month, year, time) = (twoDigitDay, named, fourDigitYear, clock)
        } else if longWeekdays.contains(weekday), reader.take(", ") {
            // RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`.
            guard let twoDigitDay = reader.digits(2), reader.take("-"), let named = monthNumber(reader.letters()),
                reader.take("-"), let twoDigitYear = reader.digits(2), reader.take(" "), let clock = reader.time(),
                reader.take(" gmt"), reader.isAtEnd
            else { return nil }
            (day, month, year, time) = (twoDigitDay, named, fullYear(endingIn: twoDigitYear, near: received), clock)
        } else if weekdays.contains(weekday), reader.take(" ") {
            // asctime: `Sun Nov  6 08:49:37 1994`.
            guard let named = monthNumber(reader.letters()), reader.take(" "),
                let dayOfMonth = reader.take(" ") ? reader.digits(1) : reader.digits(2), reader.take(" "),
                let clock = reader.time(), reader.take(" "), let fourDigitYear = reader.digits(4), reader.isAtEnd
            else { return nil }
            (day, month, year, time) = (dayOfMonth, named, fourDigitYear, clock)
        } else {
            return nil
        }
        return date(year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
    }

    /// The month a three-letter name in any case names, from 1, or `nil`.
    private static func monthNumber(_ name: String) -> Int? {
        lowercasedMonths.firstIndex(of: name).map { $0 + 1 }
    }

    /// The year ending in two digits that is within 50 years of the year of `received`: more than 50 years ahead is
    /// a century earlier (RFC 9110, 5.6.7), 50 years or more behind a century later.
    private static func fullYear(endingIn twoDigits: Int, near received: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT") ?? calendar.timeZone
        let current = calendar.component(.year, from: received)
        let year = current - current % 100 + twoDigits
        if year > current + 50 {
            return year - 100
        }
        return year <= current - 50 ? year + 100 : year
    }

    /// The date of these fields in UTC, or `nil` when one is out of its range or the day is not in the month.
    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date? {
        guard (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let text = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute, second)
        return text.utf8.withContiguousStorageIfAvailable { ISO8601.date(from: $0) } ?? nil
    }

    /// Reads an HTTP date's parts from its bytes, front to back.
    private struct Reader {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Whether every byte has been read.
        var isAtEnd: Bool { index == bytes.count }

        /// The ASCII letters from here, lowercased; empty when there are none.
        mutating func letters() -> String {
            let start = index
            while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"),
                (bytes[index] | 0x20) <= UInt8(ascii: "z")
            {
                index += 1
            }
            return String(decoding: bytes[start..<index].map { $0 | 0x20 }, as: UTF8.self)
        }

        /// Reads `expected`, a lowercase literal, in any case; reads nothing and returns `false` when it is not next.
        mutating func take(_ expected: StaticString) -> Bool {
            let literal = UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
            guard bytes.count - index >= literal.count,
                zip(bytes[index...], literal).allSatisfy({ $0 == $1 || ($0 | 0x20 == $1 && $1 >= UInt8(ascii: "a")) })
            else { return false }
            index += literal.count
            return true
        }

        /// Exactly `count` decimal digits as a number, or `nil` when fewer are next.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += count
            return value
        }

        /// `HH:MM:SS`, two digits each.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2) else {
                return nil
            }
            return (hour, minute, second)
        }
    }
}
