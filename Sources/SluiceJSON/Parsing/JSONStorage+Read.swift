// Conversions of tape entries to Swift values: strings unescaped, numbers converted exactly. Shared by the `JSON`
// read API and the decoder, so that both read a value the same way.
extension JSONStorage {
    // MARK: - Strings

    /// The string value of a string entry, unescaped.
    func string(at entry: Int) -> String {
        let raw = slice(entry)
        if flags(entry) & JSONStorage.stringHasEscapes == 0 {
            return String(decoding: raw, as: UTF8.self)
        }
        // Every escape is at least as long as the UTF-8 it stands for, so the raw length is enough.
        return String(unsafeUninitializedCapacity: raw.count) { buffer in
            JSONStorage.unescape(raw, into: buffer)
        }
    }

    /// Writes the unescaped form of a validated string's bytes and returns its length.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var read = 0
        var written = 0
        while read < raw.count {
            let byte = raw[read]
            guard byte == UInt8(ascii: "\\") else {
                output[written] = byte
                written += 1
                read += 1
                continue
            }
            let escaped = raw[read + 1]
            read += 2
            let simple: UInt8? =
                switch escaped {
                case UInt8(ascii: "b"): 0x08
                case UInt8(ascii: "f"): 0x0C
                case UInt8(ascii: "n"): 0x0A
                case UInt8(ascii: "r"): 0x0D
                case UInt8(ascii: "t"): 0x09
                case UInt8(ascii: "u"): nil
                default: escaped
                }
            if let simple {
                output[written] = simple
                written += 1
                continue
            }
            var scalar = UInt32(hexQuad(raw, at: read))
            read += 4
            if (0xD800...0xDBFF).contains(scalar) {
                // The parser checked that a low surrogate escape follows.
                let low = UInt32(hexQuad(raw, at: read + 2))
                read += 6
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            for unit in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") ?? UTF8.EncodedScalar() {
                output[written] = unit
                written += 1
            }
        }
        return written
    }

    private static func hexQuad(_ raw: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt16 {
        var value: UInt16 = 0
        for index in offset..<offset + 4 {
            value = value << 4 | UInt16(JSONParser.hexValue(raw[index]) ?? 0)
        }
        return value
    }

    /// Whether a string entry equals some UTF-8 bytes, comparing without building a `String` when the entry has
    /// no escapes.
    @inline(__always)
    func stringEquals(_ entry: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = self.length(entry)
        if flags(entry) & JSONStorage.stringHasEscapes == 0 {
            guard length == key.count else { return false }
            guard let keyBase = key.baseAddress else { return length == 0 }
            return memcmp(bytes + offset(entry), keyBase, length) == 0
        }
        return string(at: entry).utf8.elementsEqual(key)
    }

    /// Whether a string entry equals a string.
    func stringEquals(_ entry: Int, _ key: String) -> Bool {
        var key = key
        return key.withUTF8 { stringEquals(entry, $0) }
    }

    // MARK: - Numbers

    /// The exact integer value of a number entry, or `nil` if it has a fractional part or does not fit.
    func integer<T: FixedWidthInteger>(_: T.Type, at entry: Int) -> T? {
        guard let (negative, magnitude) = integerMagnitude(at: entry) else { return nil }
        if !negative {
            return T(exactly: magnitude)
        }
        if magnitude == 0 {
            return 0
        }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        let value = magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        return T(exactly: value)
    }

    /// The sign and magnitude of an integral number entry; `1.0` and `25e-1` count only when exactly integral.
    private func integerMagnitude(at entry: Int) -> (negative: Bool, magnitude: UInt64)? {
        let text = slice(entry)
        let negative = flags(entry) & JSONStorage.numberIsNegative != 0
        var index = negative ? 1 : 0
        var magnitude: UInt64 = 0
        if flags(entry) & JSONStorage.numberIsInteger != 0 {
            // At most 19 digits cannot overflow; longer ones are checked.
            if text.count - index <= 19 {
                while index < text.count {
                    magnitude = magnitude &* 10 &+ UInt64(text[index] &- UInt8(ascii: "0"))
                    index += 1
                }
                return (negative, magnitude)
            }
            while index < text.count {
                let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(text[index] &- UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                magnitude = sum
                index += 1
            }
            return (negative, magnitude)
        }
        // A fraction or exponent: collect the significant digits and the power of ten they are scaled by.
        var digits: [UInt8] = []
        var scale = 0
        var inFraction = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                digits.append(byte &- UInt8(ascii: "0"))
                if inFraction {
                    scale -= 1
                }
            }
            index += 1
        }
        scale += JSONStorage.exponent(text, from: index)
        while let last = digits.last, last == 0, scale < 0 {
            digits.removeLast()
            scale += 1
        }
        guard scale >= 0 || digits.allSatisfy({ $0 == 0 }) else { return nil }
        if digits.allSatisfy({ $0 == 0 }) {
            return (negative, 0)
        }
        for digit in digits {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
        }
        for _ in 0..<scale {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            magnitude = times
        }
        return (negative, magnitude)
    }

    /// The exponent of a validated number's text, read from the `e` or `E` at `index` (0 when the text ends there).
    ///
    /// An exponent beyond 100,000 counts as 100,000: any such power makes the value zero, infinite or, for an integer,
    /// out of range.
    @inline(__always)
    static func exponent(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard start < text.count else { return 0 }
        var index = start + 1
        var negative = false
        if text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var exponent = 0
        while index < text.count {
            exponent = min(exponent * 10 + Int(text[index] &- UInt8(ascii: "0")), 100_000)
            index += 1
        }
        return negative ? -exponent : exponent
    }

    /// The nearest `Double` to a number entry, correctly rounded; a magnitude too large is infinite.
    ///
    /// Three paths, fastest first: Clinger's (the digits fit in 53 bits and the power of ten is exact), then
    /// Eisel and Lemire's (up to 19 significant digits, a 128-bit product with a power of ten), then the C
    /// library's correctly rounded conversion for the rest.
    func double(at entry: Int) -> Double {
        let text = slice(entry)
        let negative = text[0] == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var scale = 0
        // Integer part: a significant digit past the 19 the mantissa holds scales the value up by ten; a leading zero
        // counts for nothing.
        while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
            if !JSONStorage.keepDigit(text[index], in: &mantissa, counted: &significantDigits), significantDigits > 0 {
                scale += 1
            }
            index += 1
        }
        // Fraction: a digit kept in the mantissa, or a leading zero, scales the value down by ten.
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
                if JSONStorage.keepDigit(text[index], in: &mantissa, counted: &significantDigits)
                    || significantDigits == 0
                {
                    scale -= 1
                }
                index += 1
            }
        }
        // Exponent.
        scale += JSONStorage.exponent(text, from: index)
        if mantissa == 0 {
            return negative ? -0.0 : 0.0
        }
        if significantDigits <= 19 {
            if mantissa <= 1 << 53, scale >= -22, scale <= 22 {
                let value =
                    scale < 0
                    ? Double(mantissa) / JSONStorage.exactPowersOfTen[-scale]
                    : Double(mantissa) * JSONStorage.exactPowersOfTen[scale]
                return negative ? -value : value
            }
            if let value = JSONStorage.eiselLemire(mantissa, scale) {
                return negative ? -value : value
            }
        }
        return Double(String(decoding: text, as: UTF8.self)) ?? .nan
    }

    /// Adds an ASCII digit to a number's significant digits: a leading zero is not one; the first 19 go into the
    /// mantissa, which holds no more.
    ///
    /// - Returns: Whether the digit went into the mantissa.
    @inline(__always)
    private static func keepDigit(
        _ byte: UInt8,
        in mantissa: inout UInt64,
        counted significantDigits: inout Int
    ) -> Bool {
        let digit = UInt64(byte &- UInt8(ascii: "0"))
        guard significantDigits > 0 || digit != 0 else { return false }
        significantDigits += 1
        guard significantDigits <= 19 else { return false }
        mantissa = mantissa &* 10 &+ digit
        return true
    }

    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// The correctly rounded `Double` nearest `mantissa × 10^power`, by the Eisel-Lemire algorithm, or `nil` when
    /// the product lands too near a halfway point to decide, or the result is subnormal or out of range.
    static func eiselLemire(_ mantissa: UInt64, _ power: Int) -> Double? {
        guard power >= smallestPowerOfTen, power <= largestPowerOfTen else {
            return power > largestPowerOfTen ? .infinity : nil
        }
        let leadingZeros = mantissa.leadingZeroBitCount
        let normalized = mantissa << leadingZeros
        let tableIndex = 2 * (power - smallestPowerOfTen)
        let (high, low) = (powersOfTen[tableIndex], powersOfTen[tableIndex + 1])
        var (productHigh, productLow) = normalized.multipliedFullWidth(by: high)
        // When the low 9 bits of the high word are all ones, the truncated table entry may have hidden a carry:
        // add the product with the entry's low word.
        if productHigh & 0x1FF == 0x1FF, productLow &+ normalized < productLow {
            let (extraHigh, extraLow) = normalized.multipliedFullWidth(by: low)
            let (sum, carry) = productLow.addingReportingOverflow(extraHigh)
            if carry {
                productHigh &+= 1
            }
            if productHigh & 0x1FF == 0x1FF, sum &+ 1 == 0, extraLow &+ normalized < extraLow {
                return nil
            }
            productLow = sum
        }
        let topBit = productHigh >> 63
        var bits = productHigh >> (topBit + 9)
        // The binary exponent: floor(log2(10) × power) with log2(10) as 217706 / 2^16, plus the shifts, biased.
        var exponent = ((217_706 * power) >> 16) + 64 + 1_023 - leadingZeros - Int(1 ^ topBit)
        // Exactly halfway between two doubles: round-to-even needs digits this method does not have.
        if productLow == 0, productHigh & 0x1FF == 0, bits & 3 == 1 {
            return nil
        }
        bits += bits & 1
        bits >>= 1
        if bits >> 53 != 0 {
            bits >>= 1
            exponent += 1
        }
        guard exponent > 0, exponent < 0x7FF else { return nil }
        return Double(bitPattern: UInt64(exponent) << 52 | bits & 0x000F_FFFF_FFFF_FFFF)
    }

    /// The exact decimal value of a number entry.
    func decimal(at entry: Int) -> Decimal? {
        Decimal(string: String(decoding: slice(entry), as: UTF8.self), locale: Locale(identifier: "en_US_POSIX"))
    }
}
