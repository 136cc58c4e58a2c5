/// A coding key for a position in a JSON document: an object key or an array index.
///
/// Index keys spell their string value as Foundation's decoders do (`Index 2`), so that paths from either render
/// the same way.
package struct JSONPathKey: CodingKey, Sendable {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    package init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let superKey = JSONPathKey(stringValue: "super")
}

/// Renders coding paths as JSON paths: `$.statuses[3].user.id`, with `$["odd key"]` for keys that are not
/// identifiers.
package enum JSONPath {
    package static func render(_ path: [any CodingKey]) -> String {
        var result = "$"
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                result += "[\(index)]"
            } else if isIdentifier(key.stringValue) {
                result += "." + key.stringValue
            } else {
                var writer = JSONWriter()
                writer.write(string: key.stringValue)
                result += "[" + writer.text + "]"
            }
        }
        return result
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }
}
