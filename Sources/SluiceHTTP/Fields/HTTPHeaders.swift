/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Fields keep the order and spelling in which they were added. A name may appear more than once (as
/// `Set-Cookie` does); ``subscript(_:)`` returns the first value and ``values(for:)`` all of them.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers[.authorization] = "Bearer token"
/// headers["content-type"]  // the value of Content-Type, if any
/// ```
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field: a name and its value.
    public struct Field: Sendable, Hashable {
        /// The field name.
        public var name: Header
        /// The field value.
        public var value: String

        /// Creates a field.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        public init(name: Header, value: String) {
            self.name = name
            self.value = value
        }

        /// Creates a field, for lists written out in place: `[.init("ETag", "\"v1\""), .init("Age", "0")]`.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        public init(_ name: Header, _ value: String) {
            self.init(name: name, value: value)
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates a list of header fields.
    ///
    /// - Parameter fields: The fields, in order.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value for a name, or `nil`; setting a value replaces every field of that name, and setting
    /// `nil` removes them.
    ///
    /// - Parameter name: The field name, compared case-insensitively.
    public subscript(name: Header) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let newValue else {
                fields.removeAll { $0.name == name }
                return
            }
            if let first = fields.firstIndex(where: { $0.name == name }) {
                fields[first].value = newValue
                var index = fields.index(after: first)
                while index < fields.endIndex {
                    if fields[index].name == name {
                        fields.remove(at: index)
                    } else {
                        index += 1
                    }
                }
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Every value for a name, in order.
    ///
    /// - Parameter name: The field name, compared case-insensitively.
    /// - Returns: The values of all fields with that name.
    public func values(for name: Header) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// Adds a field after the existing ones, keeping any field of the same name.
    ///
    /// - Parameters:
    ///   - value: The field value.
    ///   - name: The field name.
    public mutating func add(_ value: String, for name: Header) {
        fields.append(Field(name: name, value: value))
    }

    /// The fields as a dictionary keyed by name; repeated names are joined with `", "` (RFC 9110, 5.3).
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var spelling: [Header: String] = [:]
        for field in fields {
            let key = spelling[field.name] ?? field.name.name
            spelling[field.name] = key
            if let existing = result[key] {
                result[key] = existing + ", " + field.value
            } else {
                result[key] = field.value
            }
        }
        return result
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates headers from a dictionary literal, in the literal's order.
    ///
    /// - Parameter elements: Pairs of names and values.
    public init(dictionaryLiteral elements: (Header, String)...) {
        self.init(elements.map { Field(name: $0.0, value: $0.1) })
    }
}

extension HTTPHeaders: Sequence {
    /// An iterator over the fields in order.
    ///
    /// - Returns: The fields' iterator.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The fields as they would appear in a message, one per line.
    public var description: String {
        fields.map { "\($0.name.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension HTTPHeaders.Field: CustomStringConvertible {
    /// The field as it is written in a head: `Content-Type: text/plain`.
    public var description: String { "\(name.name): \(value)" }
}

extension HTTPHeaders {
    /// Checks every field as a client checks a request's fields before sending: each name is a token, and each value
    /// holds no control character but a tab and no Unicode line separator (see `URLRequest.validate(as:)`).
    ///
    /// What brings fields in from another library's types refuses what a client refuses, with the same error.
    ///
    /// - Parameter name: What the fields belong to, as the error names it, such as `HTTPRequest`.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/build`` and the first field at fault in
    ///   ``SluiceError/invalidField``.
    public func validate(as name: String) throws(SluiceError) {
        do {
            for field in fields {
                try HeaderValidation.check(name: field.name.name, value: field.value, endpoint: name)
            }
        } catch {
            throw SluiceError(invalidField: error.details)
        }
    }
}
