/// Writes compact JSON text: from a parsed value, copying strings and numbers as written, or from Swift values.
package struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    package init() {}

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Writes a value and everything inside it, without recursion.
    package mutating func write(_ json: JSON) {
        let storage = json.storage
        let end = storage.next(json.entry)
        var entry = json.entry
        // The open containers: where each ends, whether it is an object, and how many entries it has written.
        var open: [(end: Int, isObject: Bool, written: Int)] = []
        while true {
            while let top = open.last, top.end == entry {
                bytes.append(top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                open.removeLast()
            }
            if entry >= end {
                return
            }
            if let top = open.last {
                if top.written > 0 {
                    bytes.append(top.isObject && top.written % 2 == 1 ? UInt8(ascii: ":") : UInt8(ascii: ","))
                }
                open[open.count - 1].written += 1
            }
            switch storage.tag(entry) {
            case .null: bytes.append(contentsOf: "null".utf8)
            case .true: bytes.append(contentsOf: "true".utf8)
            case .false: bytes.append(contentsOf: "false".utf8)
            case .number: bytes.append(contentsOf: storage.slice(entry))
            case .string:
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: storage.slice(entry))
                bytes.append(UInt8(ascii: "\""))
            case .array, .object:
                let isObject = storage.tag(entry) == .object
                bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
                open.append((storage.next(entry), isObject, 0))
            }
            entry += 1
        }
    }

    /// Writes a string literal with the escapes JSON requires.
    package mutating func write(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0..<0x20: bytes.append(contentsOf: ("\\u" + String(byte, radix: 16).leftPadded(to: 4)).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes JSON text that is known to be valid, such as a number's digits or a literal.
    package mutating func write(raw: String) {
        bytes.append(contentsOf: raw.utf8)
    }

    /// Writes a `Double`: its shortest round-tripping form, or `null` when it is not finite, since JSON has no
    /// infinities or NaN.
    package mutating func write(double: Double) {
        write(raw: double.isFinite ? double.description : "null")
    }

    /// Writes an array of values.
    package mutating func write(array: [JSON]) {
        bytes.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 {
                bytes.append(UInt8(ascii: ","))
            }
            write(element)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes an object from key and value pairs, in their order.
    package mutating func write(members: some Sequence<(String, JSON)>) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            if !first {
                bytes.append(UInt8(ascii: ","))
            }
            first = false
            write(string: key)
            bytes.append(UInt8(ascii: ":"))
            write(value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The written text as a document.
    ///
    /// The writer produces valid JSON only, so this parse cannot fail.
    package func document() -> JSON {
        let parsed = bytes.withUnsafeBytes { buffer in
            try? JSONParser.parse(buffer, maximumDepth: .max, maximumSize: .max)
        }
        guard let parsed else {
            preconditionFailure("JSONWriter produced invalid JSON: \(text)")
        }
        return JSON(storage: parsed, entry: 0)
    }
}
