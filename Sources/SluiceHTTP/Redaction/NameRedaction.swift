/// The by-name half of a ``Redaction``: replaces the values that stand under hidden names in a body, and collects
/// them, so that the by-value half hides them wherever else they appear.
struct NameRedaction {
    let redaction: Redaction

    /// A body as text with the values under hidden names replaced; `nil` when it is not UTF-8 text.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - found: Receives the hidden values.
    /// - Returns: The text (a JSON body compact), whether anything was hidden, and whether it is a form body.
    func redacted(_ body: Data, found: inout [String]) -> (text: String, changed: Bool, isForm: Bool)? {
        guard !body.isEmpty else { return ("", false, false) }
        if let json = try? JSON(parsing: body) {
            var writer = JSONWriter()
            var changed = false
            write(json, into: &writer, changed: &changed, found: &found)
            return (writer.text, changed, false)
        }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        if let form = form(text, found: &found) {
            return (form.text, form.changed, true)
        }
        let plain = plainText(text, found: &found)
        return (plain.text, plain.changed, false)
    }

    private func write(_ json: JSON, into writer: inout JSONWriter, changed: inout Bool, found: inout [String]) {
        switch json.value {
        case .object(let members):
            writer.write(raw: "{")
            for (index, member) in members.enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                writer.write(string: member.key)
                writer.write(raw: ":")
                if redaction.hides(name: member.key) {
                    collect(member.value, into: &found)
                    writer.write(string: Redaction.placeholder)
                    changed = true
                } else {
                    write(member.value, into: &writer, changed: &changed, found: &found)
                }
            }
            writer.write(raw: "}")
        case .array(let elements):
            writer.write(raw: "[")
            for (index, element) in elements.enumerated() {
                if index > 0 {
                    writer.write(raw: ",")
                }
                write(element, into: &writer, changed: &changed, found: &found)
            }
            writer.write(raw: "]")
        case .string(let text):
            if let nested = nested(text, found: &found) {
                writer.write(string: nested)
                changed = true
            } else {
                writer.write(json)
            }
        default:
            writer.write(json)
        }
    }

    /// The strings under a hidden name, which are credentials wherever else they appear.
    private func collect(_ json: JSON, into found: inout [String]) {
        switch json.value {
        case .string(let text): found.append(text)
        case .array(let elements):
            for element in elements {
                collect(element, into: &found)
            }
        case .object(let members):
            for member in members {
                collect(member.value, into: &found)
            }
        default: break
        }
    }

    /// A JSON string's text redacted as a body of its own (JSON, form data or text), when something in it is hidden.
    private func nested(_ text: String, found: inout [String]) -> String? {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }) else { return nil }
        guard let redacted = redacted(Data(text.utf8), found: &found), redacted.changed else { return nil }
        return redacted.text
    }

    /// A form body (`name=value&…`) with the values of hidden fields replaced, and whether any was; `nil` when the
    /// text is not one.
    private func form(_ text: String, found: inout [String]) -> (text: String, changed: Bool)? {
        guard !text.isEmpty, !text.contains(where: { $0.isWhitespace }) else { return nil }
        var fields: [String] = []
        var changed = false
        for field in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else { return nil }
            let name = field[..<equals]
            if redaction.hides(name: NameRedaction.formDecoded(name)) {
                found.append(NameRedaction.formDecoded(field[field.index(after: equals)...]))
                fields.append(name + "=%3Credacted%3E")
                changed = true
            } else {
                fields.append(String(field))
            }
        }
        return (fields.joined(separator: "&"), changed)
    }

    /// A form field's name or value, decoded.
    private static func formDecoded(_ text: some StringProtocol) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Plain text with the value after each hidden name (`name=value`, `name: value`, `"name": "value"`) replaced:
    /// up to a space, `&`, `;` or `,` after `=`, to the end of the line after `:`, to the closing quote when quoted.
    private func plainText(_ text: String, found: inout [String]) -> (text: String, changed: Bool) {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var changed = false
        var index = 0
        var copied = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                true
            default: false
            }
        }
        func isQuote(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") }
        func skipSpaces(_ position: inout Int) {
            while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == 0x09 {
                position += 1
            }
        }
        while index < bytes.count {
            guard isNameByte(bytes[index]) else {
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, isNameByte(bytes[end]) {
                end += 1
            }
            var cursor = end
            if cursor < bytes.count, isQuote(bytes[cursor]) {
                cursor += 1
            }
            skipSpaces(&cursor)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") || bytes[cursor] == UInt8(ascii: ":"),
                redaction.hides(name: String(decoding: bytes[index..<end], as: UTF8.self))
            else {
                index = end
                continue
            }
            let afterColon = bytes[cursor] == UInt8(ascii: ":")
            cursor += 1
            skipSpaces(&cursor)
            var quote: UInt8?
            if cursor < bytes.count, isQuote(bytes[cursor]) {
                quote = bytes[cursor]
                cursor += 1
            }
            let start = cursor
            while cursor < bytes.count {
                let byte = bytes[cursor]
                if let quote {
                    if byte == quote { break }
                } else if byte == 0x0A || byte == 0x0D {
                    break
                } else if !afterColon,
                    [0x20, 0x09, UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: ",")].contains(byte)
                {
                    break
                }
                cursor += 1
            }
            if cursor > start {
                found.append(String(decoding: bytes[start..<cursor], as: UTF8.self))
                output += bytes[copied..<start]
                output += Redaction.placeholder.utf8
                copied = cursor
                changed = true
            }
            index = cursor
        }
        guard changed else { return (text, false) }
        output += bytes[copied...]
        return (String(decoding: output, as: UTF8.self), true)
    }
}
