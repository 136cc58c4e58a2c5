// Building JSON values in code, for tests, stubs and request bodies:
//
//     let body: JSON = ["name": "Ada", "tags": ["admin"], "age": 36, "active": true, "manager": .null]
extension JSON {
    /// The JSON `null` value.
    public static let null: JSON = {
        var writer = JSONWriter()
        writer.write(raw: "null")
        return writer.document()
    }()

    /// Creates a JSON string.
    ///
    /// - Parameter string: The string's value.
    public init(_ string: String) {
        var writer = JSONWriter()
        writer.write(string: string)
        self = writer.document()
    }

    /// Creates a JSON number from an integer.
    ///
    /// - Parameter integer: The number's value.
    public init(_ integer: some BinaryInteger) {
        var writer = JSONWriter()
        writer.write(raw: String(integer))
        self = writer.document()
    }

    /// Creates a JSON number from a `Double`; a value that is not finite becomes `null`, as JSON has no
    /// infinities or NaN.
    ///
    /// - Parameter double: The number's value.
    public init(_ double: Double) {
        var writer = JSONWriter()
        writer.write(double: double)
        self = writer.document()
    }

    /// Creates a JSON boolean.
    ///
    /// - Parameter bool: The boolean's value.
    public init(_ bool: Bool) {
        var writer = JSONWriter()
        writer.write(raw: bool ? "true" : "false")
        self = writer.document()
    }

    /// Creates a JSON array.
    ///
    /// - Parameter elements: The array's elements.
    public init(_ elements: [JSON]) {
        var writer = JSONWriter()
        writer.write(array: elements)
        self = writer.document()
    }

    /// Creates a JSON object from key and value pairs, keeping their order.
    ///
    /// - Parameter members: The object's members.
    public init(members: [(String, JSON)]) {
        var writer = JSONWriter()
        writer.write(members: members)
        self = writer.document()
    }
}

extension JSON: ExpressibleByStringLiteral {
    /// Creates a JSON string from a literal.
    ///
    /// - Parameter value: The string's value.
    public init(stringLiteral value: String) {
        self.init(value)
    }
}

extension JSON: ExpressibleByIntegerLiteral {
    /// Creates a JSON number from an integer literal.
    ///
    /// - Parameter value: The number's value.
    public init(integerLiteral value: Int) {
        self.init(value)
    }
}

extension JSON: ExpressibleByFloatLiteral {
    /// Creates a JSON number from a floating-point literal.
    ///
    /// - Parameter value: The number's value.
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension JSON: ExpressibleByBooleanLiteral {
    /// Creates a JSON boolean from a literal.
    ///
    /// - Parameter value: The boolean's value.
    public init(booleanLiteral value: Bool) {
        self.init(value)
    }
}

extension JSON: ExpressibleByArrayLiteral {
    /// Creates a JSON array from a literal.
    ///
    /// - Parameter elements: The array's elements.
    public init(arrayLiteral elements: JSON...) {
        self.init(elements)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// Creates a JSON object from a literal, keeping the literal's order.
    ///
    /// - Parameter elements: The object's members.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(members: elements)
    }
}
