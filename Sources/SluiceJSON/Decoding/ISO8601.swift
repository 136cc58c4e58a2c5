/// Parses RFC 3339 internet date-times (the ISO 8601 profile used on the web) from UTF-8 bytes.
///
/// Accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds of any length, then `Z` or an offset `±HH:MM`
/// (`t` and `z` in lower case too). Fields are range-checked, including the day against the month's length.
package enum ISO8601 {
    package static func date(from text: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= text.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = text[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < text.count, text[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), index < text.count, text[index] | 0x20 == UInt8(ascii: "t")
        else { return nil }
        index += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            var digits = 0
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
                fraction += Double(text[index] &- UInt8(ascii: "0")) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        guard index < text.count else { return nil }
        var offset = 0
        if text[index] | 0x20 == UInt8(ascii: "z") {
            index += 1
        } else if text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            let sign = text[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == text.count else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, counting eras of 400 years.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
