extension JSON {
    /// Returns the JSON document a deserializer produced.
    ///
    /// For the document ``JSONDeserializer`` produces this is a cast, with nothing converted. For the object
    /// trees of Foundation's `JSONSerialization` (`[String: Any]`, `[Any]`, `String`, `NSNumber`, `NSNull`), as
    /// a custom deserializer might produce, the tree is converted.
    ///
    /// - Parameter object: What the deserializer produced.
    /// - Returns: The JSON value.
    /// - Throws: `DecodingError.dataCorrupted` naming the path and type of a value that JSON cannot represent.
    public static func parse(_ object: Any) throws -> JSON {
        if let json = object as? JSON {
            return json
        }
        return try JSON(foundationObject: object)
    }

    /// Converts an object tree of the kind `JSONSerialization` produces.
    ///
    /// - Parameter object: A `JSONSerialization` object: a dictionary with string keys, an array, a string, a
    ///   number, a boolean or `NSNull`, nested in any way.
    /// - Throws: `DecodingError.dataCorrupted` naming the path and type of a value that JSON cannot represent.
    public init(foundationObject object: Any) throws {
        var writer = JSONWriter()
        try JSON.write(object, to: &writer, path: [])
        self = writer.document()
    }

    private static func write(_ object: Any, to writer: inout JSONWriter, path: [JSONPathKey]) throws {
        switch object {
        case let json as JSON:
            writer.write(json)
        case is NSNull:
            writer.write(raw: "null")
        case let string as String:
            writer.write(string: string)
        case let number as NSNumber where JSON.isBoolean(number):
            writer.write(raw: number.boolValue ? "true" : "false")
        case let bool as Bool where type(of: object) == Bool.self:
            writer.write(raw: bool ? "true" : "false")
        case let number as NSNumber:
            try write(number: number, to: &writer, path: path)
        case let dictionary as [String: Any]:
            writer.write(raw: "{")
            for (index, key) in dictionary.keys.sorted().enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                writer.write(string: key)
                writer.write(raw: ":")
                try write(dictionary[key] as Any, to: &writer, path: path + [JSONPathKey(stringValue: key)])
            }
            writer.write(raw: "}")
        case let array as [Any]:
            writer.write(raw: "[")
            for (index, element) in array.enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                try write(element, to: &writer, path: path + [JSONPathKey(intValue: index)])
            }
            writer.write(raw: "]")
        default:
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: path,
                    debugDescription: "expected a JSON value (a JSON document or JSONSerialization output), "
                        + "found a value of type \(type(of: object))"
                )
            )
        }
    }

    private static func write(number: NSNumber, to writer: inout JSONWriter, path: [JSONPathKey]) throws {
        let type = String(cString: number.objCType)
        if ["f", "d"].contains(type) {
            guard number.doubleValue.isFinite else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path,
                        debugDescription: "expected a finite number, found \(number.doubleValue)"
                    )
                )
            }
            writer.write(double: number.doubleValue)
        } else if ["Q", "L", "I", "S", "C"].contains(type) {
            writer.write(raw: String(number.uint64Value))
        } else {
            writer.write(raw: String(number.int64Value))
        }
    }

    /// Whether an `NSNumber` holds a boolean, as `JSONSerialization` produces for `true` and `false`.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}
