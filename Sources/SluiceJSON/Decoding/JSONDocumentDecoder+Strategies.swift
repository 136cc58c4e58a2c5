extension JSONDocumentDecoder {
    /// How `Date` values are decoded.
    ///
    /// An open set of strategies, as static members.
    public struct DateDecodingStrategy: Sendable {
        enum Kind: Sendable {
            case deferredToDate
            case secondsSince1970
            case millisecondsSince1970
            case iso8601
            case formatted(@Sendable (String) throws -> Date)
            case custom(@Sendable (any Decoder) throws -> Date)
        }

        let kind: Kind

        /// `Date`'s own decoding: seconds since 1 January 2001, as a number.
        public static let deferredToDate = DateDecodingStrategy(kind: .deferredToDate)
        /// A number of seconds since 1 January 1970, possibly fractional.
        public static let secondsSince1970 = DateDecodingStrategy(kind: .secondsSince1970)
        /// A number of milliseconds since 1 January 1970, possibly fractional.
        public static let millisecondsSince1970 = DateDecodingStrategy(kind: .millisecondsSince1970)
        /// An RFC 3339 (ISO 8601) internet date-time string, such as `2026-03-01T09:30:00Z` or
        /// `2026-03-01T09:30:00.250+01:00`: fractional seconds are optional, the offset is required.
        ///
        /// Parsed by Sluice itself, in about the time it takes to read the string, not with a date formatter.
        public static let iso8601 = DateDecodingStrategy(kind: .iso8601)

        /// A string in the format of a parse strategy, such as a `Date.FormatStyle` or a `Date.ParseStrategy`.
        ///
        /// The counterpart of Foundation's `.formatted(DateFormatter)`, with a `Sendable` parse strategy in place of
        /// the formatter:
        ///
        /// ```swift
        /// let day = Date.ParseStrategy(
        ///     format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits)",
        ///     timeZone: .gmt,
        ///     isLenient: false
        /// )
        /// let decoder = JSONDocumentDecoder(dateDecodingStrategy: .formatted(day))
        /// ```
        ///
        /// - Parameter strategy: Parses the string into a date.
        /// - Returns: The strategy.
        public static func formatted<Strategy: ParseStrategy & Sendable>(
            _ strategy: Strategy
        ) -> DateDecodingStrategy where Strategy.ParseInput == String, Strategy.ParseOutput == Date {
            DateDecodingStrategy(kind: .formatted { try strategy.parse($0) })
        }

        /// Decodes dates with a closure given a decoder positioned at the value.
        ///
        /// - Parameter decode: Reads the date, typically from `decoder.singleValueContainer()`.
        /// - Returns: The strategy.
        public static func custom(_ decode: @escaping @Sendable (any Decoder) throws -> Date) -> DateDecodingStrategy {
            DateDecodingStrategy(kind: .custom(decode))
        }
    }

    /// How `Data` values are decoded.
    ///
    /// An open set of strategies, as static members.
    public struct DataDecodingStrategy: Sendable {
        enum Kind: Sendable {
            case base64
            case deferredToData
            case custom(@Sendable (any Decoder) throws -> Data)
        }

        let kind: Kind

        /// A Base64 string.
        public static let base64 = DataDecodingStrategy(kind: .base64)
        /// `Data`'s own decoding: an array of byte values.
        public static let deferredToData = DataDecodingStrategy(kind: .deferredToData)

        /// Decodes data with a closure given a decoder positioned at the value.
        ///
        /// - Parameter decode: Reads the data.
        /// - Returns: The strategy.
        public static func custom(_ decode: @escaping @Sendable (any Decoder) throws -> Data) -> DataDecodingStrategy {
            DataDecodingStrategy(kind: .custom(decode))
        }
    }

    /// How object keys are matched to coding keys.
    ///
    /// An open set of strategies, as static members.
    public struct KeyDecodingStrategy: Sendable {
        enum Kind: Sendable {
            case useDefaultKeys
            case convertFromSnakeCase
            case custom(@Sendable ([any CodingKey]) -> any CodingKey)
        }

        let kind: Kind

        /// Keys are matched exactly.
        public static let useDefaultKeys = KeyDecodingStrategy(kind: .useDefaultKeys)
        /// Object keys in snake case are matched to coding keys in camel case, converted as Foundation's
        /// `JSONDecoder` does: `user_id` matches `userId`, `_private_key_` matches `_privateKey_`, and a key with
        /// no inner underscore is used as it is.
        public static let convertFromSnakeCase = KeyDecodingStrategy(kind: .convertFromSnakeCase)

        /// Converts each object key with a closure given the coding path, whose last key is the object key.
        ///
        /// - Parameter convert: Returns the coding key an object key stands for.
        /// - Returns: The strategy.
        public static func custom(
            _ convert: @escaping @Sendable ([any CodingKey]) -> any CodingKey
        ) -> KeyDecodingStrategy {
            KeyDecodingStrategy(kind: .custom(convert))
        }
    }

    /// How infinities and NaN, which JSON numbers cannot express, are decoded from strings.
    public struct NonConformingFloatDecodingStrategy: Sendable {
        let names: (positiveInfinity: String, negativeInfinity: String, nan: String)?

        /// Only numbers decode as floating-point values.
        public static let `throw` = NonConformingFloatDecodingStrategy(names: nil)

        /// Strings with the given values decode as infinities and NaN.
        ///
        /// - Parameters:
        ///   - positiveInfinity: The string for `+infinity`.
        ///   - negativeInfinity: The string for `-infinity`.
        ///   - nan: The string for NaN.
        /// - Returns: The strategy.
        public static func convertFromString(
            positiveInfinity: String,
            negativeInfinity: String,
            nan: String
        ) -> NonConformingFloatDecodingStrategy {
            NonConformingFloatDecodingStrategy(names: (positiveInfinity, negativeInfinity, nan))
        }
    }
}
