extension JSON: Decodable {
    /// Decodes any JSON value, so that a model can keep part of a document as ``JSON``.
    ///
    /// From ``JSONDocumentDecoder`` this takes the value in place; from other decoders it rebuilds the value
    /// from their containers (object members then come in the order of the decoder's `allKeys`).
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of the JSON kinds.
    public init(from decoder: any Decoder) throws {
        if let tape = decoder as? TapeDecoder {
            self.init(storage: tape.storage, entry: tape.entry)
            return
        }
        if let keyed = try? decoder.container(keyedBy: JSONPathKey.self) {
            let members = try keyed.allKeys.map { key in (key.stringValue, try keyed.decode(JSON.self, forKey: key)) }
            self.init(members: members)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSON] = []
            while !unkeyed.isAtEnd {
                elements.append(try unkeyed.decode(JSON.self))
            }
            self.init(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self.init(bool)
        } else if let integer = try? single.decode(Int64.self) {
            self.init(integer)
        } else if let integer = try? single.decode(UInt64.self) {
            self.init(integer)
        } else if let double = try? single.decode(Double.self) {
            self.init(double)
        } else if let string = try? single.decode(String.self) {
            self.init(string)
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected a JSON value")
            )
        }
    }
}

extension JSON: Encodable {
    /// Encodes the value with any encoder: objects as keyed containers in document order, arrays as unkeyed
    /// containers, integers exactly and other numbers as `Double`.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let bool):
            var container = encoder.singleValueContainer()
            try container.encode(bool)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let integer = number.exactly(Int64.self), number.isInteger {
                try container.encode(integer)
            } else if let integer = number.exactly(UInt64.self), number.isInteger {
                try container.encode(integer)
            } else {
                try container.encode(number.double)
            }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let members):
            var container = encoder.container(keyedBy: JSONPathKey.self)
            for (key, value) in members {
                try container.encode(value, forKey: JSONPathKey(stringValue: key))
            }
        }
    }
}
