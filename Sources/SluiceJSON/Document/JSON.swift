/// A JSON value: the document the ``JSONDeserializer`` produces, and any value inside it.
///
/// `JSON` is an opaque value type. A parsed document keeps its source bytes and a flat index of every value in
/// them; a `JSON` is a reference to one value of that index, so taking a member or an element copies nothing,
/// and a string or number is converted only when read.
///
/// ```swift
/// let json = try JSON(parsing: #"{"user": {"name": "Ada", "langs": ["en", "fr"]}}"#)
/// json["user"]?["name"]?.string       // "Ada"
/// json["user"]?["langs"]?[1]?.string  // "fr"
/// if let user = json["user"]?.members {
///     for (key, value) in user {
///         print(key, value.kind)
///     }
/// }
/// ```
///
/// Read a value with the typed accessors (``string``, ``int``, ``double``, ``bool``…), which return `nil` for a
/// value of another kind, with ``value`` to pattern-match on, or decode a `Decodable` model with
/// ``decode(_:using:)``.
public struct JSON: Sendable {
    let storage: JSONStorage
    let entry: Int

    init(storage: JSONStorage, entry: Int) {
        self.storage = storage
        self.entry = entry
    }

    /// Parses a JSON document from UTF-8 bytes, with the default limits of ``JSONDeserializer``.
    ///
    /// Unlike the deserializer's default, empty input is an error here: it holds no JSON value.
    ///
    /// - Parameter data: The document's bytes.
    /// - Throws: ``JSONError`` if the bytes are not one valid JSON value.
    public init(parsing data: Data) throws(JSONError) {
        self = try JSONDeserializer(emptyBody: .reject).document(from: data)
    }

    /// Parses a JSON document from a string, with the default limits of ``JSONDeserializer``.
    ///
    /// - Parameter text: The document's text.
    /// - Throws: ``JSONError`` if the text is not one valid JSON value.
    public init(parsing text: String) throws(JSONError) {
        try self.init(parsing: Data(text.utf8))
    }

    /// The kind of a JSON value.
    @frozen
    public enum Kind: Sendable, Hashable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool
        /// A number.
        case number
        /// A string.
        case string
        /// An array.
        case array
        /// An object.
        case object
    }

    /// The kind of this value.
    public var kind: Kind {
        switch storage.tag(entry) {
        case .null: .null
        case .true, .false: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// Whether this value is `null`.
    public var isNull: Bool { storage.tag(entry) == .null }

    /// The value of a boolean, or `nil` for any other kind.
    public var bool: Bool? {
        switch storage.tag(entry) {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The value of a string, unescaped, or `nil` for any other kind.
    public var string: String? {
        storage.tag(entry) == .string ? storage.string(at: entry) : nil
    }

    /// The value of a number, exactly as written, or `nil` for any other kind.
    public var number: Number? {
        storage.tag(entry) == .number ? Number(storage: storage, entry: entry) : nil
    }

    /// The value of a number that is an integer in the range of `Int`, or `nil`.
    public var int: Int? { number?.exactly(Int.self) }

    /// The value of a number that is an integer in the range of `Int64`, or `nil`.
    public var int64: Int64? { number?.exactly(Int64.self) }

    /// The value of a number that is an integer in the range of `UInt64`, or `nil`.
    public var uint64: UInt64? { number?.exactly(UInt64.self) }

    /// The nearest `Double` to a number, or `nil` for any other kind.
    public var double: Double? { number?.double }

    /// The elements of an array, or `nil` for any other kind.
    public var elements: Elements? {
        storage.tag(entry) == .array ? Elements(storage: storage, entry: entry) : nil
    }

    /// The members of an object, in document order, or `nil` for any other kind.
    public var members: Members? {
        storage.tag(entry) == .object ? Members(storage: storage, entry: entry) : nil
    }

    /// The elements of an array as an array, or `nil` for any other kind.
    public var array: [JSON]? { elements.map(Array.init) }

    /// The members of an object as a dictionary, or `nil` for any other kind.
    ///
    /// Where a key is repeated, the first member wins, as with ``subscript(_:)-(String)``.
    public var object: [String: JSON]? {
        members.map { Dictionary($0.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// The number of elements of an array or members of an object; `nil` for any other kind.
    ///
    /// A key that appears more than once in an object is counted each time, as ``Members`` lists it.
    public var count: Int? {
        switch storage.tag(entry) {
        case .array, .object: storage.containerCount(entry)
        default: nil
        }
    }

    /// The value of an object's member, or `nil` if this is not an object or has no such key.
    ///
    /// Where a key is repeated, the first member wins, as with ``JSONDocumentDecoder`` and Foundation's
    /// `JSONDecoder`. Keys compare byte for byte after unescaping.
    ///
    /// - Parameter key: The member's key.
    public subscript(key: String) -> JSON? {
        members?[key]
    }

    /// An array's element, or `nil` if this is not an array or the index is out of range.
    ///
    /// - Parameter index: The element's position, counted from 0.
    public subscript(index: Int) -> JSON? {
        guard let elements, index >= 0, index < elements.count else { return nil }
        return elements[elements.index(elements.startIndex, offsetBy: index)]
    }

    /// The value's JSON text, compact, with strings and numbers exactly as in the source.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.write(self)
        return writer.text
    }

    /// The value's JSON text as UTF-8 bytes; see ``jsonText``.
    public var jsonData: Data {
        var writer = JSONWriter()
        writer.write(self)
        return Data(writer.bytes)
    }

    /// The byte range of this value in the document it was parsed from.
    public var sourceRange: Range<Int> {
        storage.offset(entry)..<storage.endOffset(entry)
    }
}

extension JSON: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value's compact JSON text.
    public var description: String { jsonText }

    /// The value's compact JSON text, marked as JSON.
    public var debugDescription: String { "JSON(\(jsonText))" }
}
