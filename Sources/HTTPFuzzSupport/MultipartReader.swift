/// A reader of the `multipart/form-data` bodies ``MultipartForm/Encoder`` writes, kept apart from the encoder so that
/// each checks the other.
///
/// It reads RFC 2046's layout strictly: the first delimiter at the start, each part's header lines up to a blank
/// line, the part's content up to the next `CRLF--boundary`, then CRLF for another part or `--` CRLF at the very end
/// of the body. Field and file names are the quoted strings of `Content-Disposition`, as sent.
struct MultipartReader {
    /// One part as read.
    struct Part: Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var content: [UInt8]
    }

    /// Why a body did not read.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let body: [UInt8]
    private let delimiter: [UInt8]
    private var offset = 0

    /// Reads a body.
    ///
    /// - Parameters:
    ///   - body: The encoded body.
    ///   - boundary: The boundary its content type names.
    /// - Returns: The parts, in order.
    /// - Throws: ``Failure`` saying where the body breaks the layout.
    static func parts(of body: [UInt8], boundary: String) throws -> [Part] {
        var reader = MultipartReader(body: body, delimiter: Array("--\(boundary)".utf8))
        return try reader.readParts()
    }

    private init(body: [UInt8], delimiter: [UInt8]) {
        self.body = body
        self.delimiter = delimiter
    }

    private mutating func readParts() throws -> [Part] {
        try expect(delimiter, "the first delimiter")
        var parts: [Part] = []
        while true {
            if take(Array("--\r\n".utf8)) {
                guard offset == body.count else {
                    throw Failure(description: "\(body.count - offset) bytes after the close delimiter")
                }
                return parts
            }
            try expect(Array("\r\n".utf8), "the line end after a delimiter")
            var part = try readHeaders()
            guard let end = find(Array("\r\n".utf8) + delimiter, from: offset) else {
                throw Failure(description: "part \(parts.count) has no delimiter after it")
            }
            part.content = Array(body[offset..<end])
            offset = end + 2 + delimiter.count
            parts.append(part)
        }
    }

    private mutating func readHeaders() throws -> Part {
        var part = Part(name: "", filename: nil, contentType: nil, content: [])
        var sawDisposition = false
        while true {
            guard let end = find(Array("\r\n".utf8), from: offset) else {
                throw Failure(description: "a part header without a line end at \(offset)")
            }
            let line = Array(body[offset..<end])
            offset = end + 2
            if line.isEmpty {
                guard sawDisposition else { throw Failure(description: "a part without Content-Disposition") }
                return part
            }
            var rest = line[...]
            if let value = Self.strip(Array("Content-Type: ".utf8), from: rest) {
                guard part.contentType == nil else { throw Failure(description: "a second Content-Type") }
                part.contentType = String(decoding: value, as: UTF8.self)
            } else if let value = Self.strip(Array("Content-Disposition: form-data; name=".utf8), from: rest) {
                guard !sawDisposition else { throw Failure(description: "a second Content-Disposition") }
                sawDisposition = true
                rest = value
                part.name = try Self.quoted(&rest)
                if !rest.isEmpty {
                    guard let value = Self.strip(Array("; filename=".utf8), from: rest) else {
                        throw Failure(description: "a Content-Disposition with more than a file name after the name")
                    }
                    rest = value
                    part.filename = try Self.quoted(&rest)
                    guard rest.isEmpty else { throw Failure(description: "bytes after the file name") }
                }
            } else {
                throw Failure(description: "an unexpected header line \(String(decoding: line, as: UTF8.self))")
            }
        }
    }

    private static func strip(_ prefix: [UInt8], from line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        line.starts(with: prefix) ? line.dropFirst(prefix.count) : nil
    }

    /// A quoted string at the start of `rest`, which loses it: the text between the quotes, which hold no quote.
    private static func quoted(_ rest: inout ArraySlice<UInt8>) throws -> String {
        guard rest.first == UInt8(ascii: "\""), let close = rest.dropFirst().firstIndex(of: UInt8(ascii: "\"")) else {
            throw Failure(description: "a name that is not a quoted string")
        }
        let text = String(decoding: rest[(rest.startIndex + 1)..<close], as: UTF8.self)
        rest = rest[(close + 1)...]
        return text
    }

    private mutating func expect(_ bytes: [UInt8], _ what: String) throws {
        guard take(bytes) else { throw Failure(description: "\(what) is missing at \(offset)") }
    }

    private mutating func take(_ bytes: [UInt8]) -> Bool {
        guard body[offset...].starts(with: bytes) else { return false }
        offset += bytes.count
        return true
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard needle.count <= body.count - start else { return nil }
        var index = start
        while index <= body.count - needle.count {
            if body[index] == needle[0], body[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
