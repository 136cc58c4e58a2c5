extension JSON {
    /// A JSON number, exactly as written in the document.
    ///
    /// JSON numbers have no fixed precision, so a `Number` keeps its text and converts on request: exactly to an
    /// integer type when the value is integral and in range, to the nearest `Double`, or exactly to `Decimal`.
    public struct Number: Sendable {
        let storage: JSONStorage
        let entry: Int

        /// The number's text as written in the document, such as `-12.5e3`.
        public var text: String {
            String(decoding: storage.slice(entry), as: UTF8.self)
        }

        /// Whether the number is written without a fraction or an exponent.
        public var isInteger: Bool {
            storage.flags(entry) & JSONStorage.numberIsInteger != 0
        }

        /// The value as an integer of the given type, or `nil` if it is not integral or out of that type's range.
        ///
        /// A fraction or exponent is allowed when the value is integral: `2.0` and `20e-1` are 2, `2.5` is `nil`.
        ///
        /// - Parameter type: The integer type.
        /// - Returns: The exact value, or `nil`.
        public func exactly<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            storage.integer(type, at: entry)
        }

        /// The nearest `Double`, correctly rounded; infinite when the magnitude is beyond `Double`'s range.
        public var double: Double {
            storage.double(at: entry)
        }

        /// The exact value as a `Decimal`, or `nil` when `Decimal` cannot hold it.
        public var decimal: Decimal? {
            storage.decimal(at: entry)
        }
    }
}

extension JSON.Number: Equatable {
    /// Compares numeric values: `1`, `1.0` and `10e-1` are equal.
    ///
    /// - Parameters:
    ///   - lhs: A number.
    ///   - rhs: Another number.
    /// - Returns: Whether the numbers have the same value.
    public static func == (lhs: JSON.Number, rhs: JSON.Number) -> Bool {
        if let left = lhs.exactly(Int64.self), let right = rhs.exactly(Int64.self) {
            return left == right
        }
        if let left = lhs.exactly(UInt64.self), let right = rhs.exactly(UInt64.self) {
            return left == right
        }
        if let left = lhs.decimal, let right = rhs.decimal {
            return left == right
        }
        return lhs.double == rhs.double
    }
}

extension JSON.Number: CustomStringConvertible {
    /// The number's text as written.
    public var description: String { text }
}
