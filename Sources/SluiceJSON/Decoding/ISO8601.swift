/// Parses RFC 3339 internet date-times (the ISO 8601 profile used on the web) from UTF-8 bytes.
///
/// Accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds of any length, then `Z` or an offset `±HH:MM`,
/// `±HHMM` or `±HH` (`t` and `z` in lower case too). Fields are range-checked, including the day against the
/// month's length. Dates before 15 October 1582 are read in the Julian calendar and the fraction is added to the
/// seconds since the reference date in one rounding, so that a date is `==` to the one Foundation's `.iso8601`
/// strategy reads from the same text.
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
        // Before 15 October 1582 a date is read in the Julian calendar, as Foundation's calendars read it.
        let julian = (year, month, day) < (1582, 10, 15)
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year, julian: julian), hour < 24,
            minute < 60, second <= 60
        else { return nil }
        // The fraction's digits as an integer over a power of ten, so that `.1` is the double nearest a tenth
        // rather than a sum of rounded tenths. Digits past the eighteenth cannot change a double and are skipped.
        var fractionDigits: UInt64 = 0
        var fractionScale = 0
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
                if fractionScale < 18 {
                    fractionDigits = fractionDigits * 10 + UInt64(text[index] &- UInt8(ascii: "0"))
                    fractionScale += 1
                }
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
            // `±HH:MM`, `±HHMM` or `±HH`: RFC 3339 writes the first, ISO 8601 and many APIs the others.
            guard let offsetHours = number(2) else { return nil }
            var offsetMinutes = 0
            if index < text.count {
                _ = expect(UInt8(ascii: ":"))
                guard let minutes = number(2) else { return nil }
                offsetMinutes = minutes
            }
            guard offsetHours < 24, offsetMinutes < 60 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == text.count else { return nil }
        let days =
            julian
            ? julianDaysSince1970(year: year, month: month, day: day)
            : daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // Counted from the reference date, as `Date` stores it, so that the fraction is added once, exactly as
        // Foundation adds it.
        let sinceReference = Double(seconds - 978_307_200)
        guard fractionScale > 0 else { return Date(timeIntervalSinceReferenceDate: sinceReference) }
        return Date(
            timeIntervalSinceReferenceDate: sinceReference + Double(fractionDigits) / powersOfTen[fractionScale]
        )
    }

    /// 10⁰ to 10¹⁸, each exact as a double.
    private static let powersOfTen: [Double] = (0...18).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    private static func daysIn(month: Int, year: Int, julian: Bool) -> Int {
        switch month {
        case 2: year % 4 == 0 && (julian || year % 100 != 0 || year % 400 == 0) ? 29 : 28
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

    /// Days from 1970-01-01 to a date of the proleptic Julian calendar, through its Julian day number.
    private static func julianDaysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shift = (14 - month) / 12
        let shiftedYear = year + 4800 - shift
        let shiftedMonth = month + 12 * shift - 3
        let julianDayNumber =
            day + (153 * shiftedMonth + 2) / 5 + 365 * shiftedYear + shiftedYear / 4 - 32_083
        return julianDayNumber - 2_440_588
    }
}
