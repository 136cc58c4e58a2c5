/// A stored head as bytes, for the disk store: length-prefixed fields, read back with every length checked against
/// what is left, so that a damaged file is refused with the reason and never trusted.
extension CacheEntry {
    /// The most fields, variant fields or bytes of one string a head may hold when read back.
    static let codingLimits = (fields: 1024, string: 1 << 20)

    /// The head as bytes: key, URL, status, times, body size, variant, then header fields.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func put(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
        func put(_ text: String) {
            put(UInt64(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        put(key)
        put(url?.absoluteString ?? "")
        put(UInt64(status.code))
        put(status.reasonPhrase)
        put(requestTime.timeIntervalSince1970.bitPattern)
        put(responseTime.timeIntervalSince1970.bitPattern)
        put(UInt64(bodySize))
        put(UInt64(variant.count))
        for field in variant {
            put(field.name)
            put(field.value == nil ? 0 : 1)
            put(field.value ?? "")
        }
        put(UInt64(headers.fields.count))
        for field in headers.fields {
            put(field.name.name)
            put(field.value)
        }
        return bytes
    }

    /// Reads a head written by ``encoded``.
    ///
    /// - Throws: ``CacheEntry/DecodingError`` naming the field that could not be read and the offset.
    init(decoding bytes: some RandomAccessCollection<UInt8>) throws(DecodingError) {
        var reader = Reader(bytes: Array(bytes))
        key = try reader.string("key")
        let address = try reader.string("URL")
        url = address.isEmpty ? nil : URL(string: address)
        let code = try reader.number("status", below: 1000)
        status = HTTPStatus(code: code, reasonPhrase: try reader.string("reason phrase"))
        requestTime = Date(timeIntervalSince1970: Double(bitPattern: try reader.word("request time")))
        responseTime = Date(timeIntervalSince1970: Double(bitPattern: try reader.word("response time")))
        bodySize = try reader.number("body size", below: Int.max)
        variant = []
        for _ in 0..<(try reader.number("variant count", below: CacheEntry.codingLimits.fields)) {
            let name = try reader.string("variant name")
            let present = try reader.number("variant presence", below: 2) == 1
            let value = try reader.string("variant value")
            variant.append(Field(name: name, value: present ? value : nil))
        }
        var fields: [HTTPHeaders.Field] = []
        for _ in 0..<(try reader.number("header count", below: CacheEntry.codingLimits.fields)) {
            let name = try reader.string("header name")
            fields.append(HTTPHeaders.Field(name: Header(name), value: try reader.string("header value")))
        }
        headers = HTTPHeaders(fields)
        guard reader.offset == reader.bytes.count else {
            throw DecodingError(field: "end of head", offset: reader.offset)
        }
    }

    /// A head that could not be read: which field, at which byte offset.
    struct DecodingError: Error, Sendable, CustomStringConvertible {
        var field: String
        var offset: Int

        var description: String { "the stored head is damaged: cannot read its \(field) at byte \(offset)" }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func word(_ field: String) throws(DecodingError) -> UInt64 {
            guard bytes.count - offset >= 8 else { throw DecodingError(field: field, offset: offset) }
            var value: UInt64 = 0
            for byte in bytes[offset..<offset + 8] {
                value = value << 8 | UInt64(byte)
            }
            offset += 8
            return value
        }

        mutating func number(_ field: String, below limit: Int) throws(DecodingError) -> Int {
            let start = offset
            let value = try word(field)
            guard value < UInt64(limit) else { throw DecodingError(field: field, offset: start) }
            return Int(value)
        }

        mutating func string(_ field: String) throws(DecodingError) -> String {
            let start = offset
            let count = try number(field, below: CacheEntry.codingLimits.string)
            guard bytes.count - offset >= count else { throw DecodingError(field: field, offset: start) }
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }
    }
}
