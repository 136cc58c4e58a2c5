import Foundation
package import SluiceEndpoints

/// What must hold for every form ``MultipartForm/Encoder`` writes: the body reads back, with an independent reader,
/// as the same parts; no part's content holds the boundary delimiter, at the start of the content or after CR or
/// LF; and a form that cannot be written is refused with an error naming the part, or the boundary, at fault.
package enum MultipartInvariants {
    /// The byte that separates the input's fields.
    static let separator: UInt8 = 0xFF

    /// Builds a form from an input, writes it and reads it back.
    ///
    /// The payload is fields separated by 0xFF: with flag 0, the boundary first, else the boundary is `B`; then a
    /// name, a file name, a content type and a content for each part, the file name and the content type left out
    /// when empty.
    ///
    /// - Parameter input: The fuzzer's input.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in input: ChunkedInput) -> String? {
        var fields = input.payload.split(separator: separator, omittingEmptySubsequences: false).map(Array.init)
        let boundary = input.flag(0) && !fields.isEmpty ? String(decoding: fields.removeFirst(), as: UTF8.self) : "B"
        var parts: [MultipartForm.Part] = []
        while fields.count >= 4 && parts.count < 16 {
            let name = String(decoding: fields[0], as: UTF8.self)
            let filename = fields[1].isEmpty ? nil : String(decoding: fields[1], as: UTF8.self)
            let contentType = fields[2].isEmpty ? nil : String(decoding: fields[2], as: UTF8.self)
            var part = MultipartForm.Part.file(name, filename: "", contentType: "", data: Data(fields[3]))
            part.filename = filename
            part.contentType = contentType
            parts.append(part)
            fields.removeFirst(4)
        }
        return violation(in: parts, boundary: boundary)
    }

    /// Writes a form and reads it back.
    ///
    /// - Parameters:
    ///   - parts: The form's parts, held in memory.
    ///   - boundary: The encoder's boundary.
    /// - Returns: A description of the broken invariant, or `nil` when they all hold.
    package static func violation(in parts: [MultipartForm.Part], boundary: String) -> String? {
        let delimiter = Array("--\(boundary)".utf8)
        let contents = parts.map { part in part.bytesInMemory.map(Array.init) ?? [] }
        let body: RequestBody
        do {
            body = try MultipartForm.Encoder(boundary: boundary).encodeBody(MultipartForm(parts))
        } catch let error as SluiceError {
            guard error.code == .build, let field = error.invalidField else {
                return "a refusal that names no field: \(error)"
            }
            return refusal(field, parts: parts, contents: contents, delimiter: delimiter)
        } catch let error as EncodingError {
            guard case .invalidValue(_, let context) = error, context.debugDescription.contains("boundary"),
                !isValid(boundary: boundary)
            else {
                return "an encoding error for a valid boundary \(boundary.debugDescription): \(error)"
            }
            return nil
        } catch {
            return "an error of an unexpected type: \(error)"
        }
        guard isValid(boundary: boundary) else { return "an invalid boundary accepted: \(boundary.debugDescription)" }
        guard body.contentType == "multipart/form-data; boundary=\(boundary)" else {
            return "the content type \(body.contentType ?? "none") does not name the boundary"
        }
        guard let bytes = body.bytesInMemory else { return "a form held in memory written as a stream" }
        for (index, content) in contents.enumerated() where holdsDelimiter(content, delimiter) {
            return "part \(index)'s content holds the delimiter and was written: \(content)"
        }
        let read: [MultipartReader.Part]
        do {
            read = try MultipartReader.parts(of: Array(bytes), boundary: boundary)
        } catch {
            return "the body does not read back: \(error)"
        }
        guard read.count == parts.count else {
            return "\(parts.count) parts written, \(read.count) read back"
        }
        for (index, (part, back)) in zip(parts, read).enumerated() {
            // Names are sent with `"`, CR and LF percent-encoded, as HTML forms do; a name that holds `%22` reads
            // back as a quote, so both sides are compared decoded.
            guard decoded(back.name) == decoded(part.name), back.filename.map(decoded) == part.filename.map(decoded),
                back.contentType == part.contentType, back.content == contents[index]
            else {
                return "part \(index) reads back as \(back)"
            }
        }
        return nil
    }

    /// Checks that a refusal names a part whose content type or content is at fault.
    private static func refusal(
        _ error: SluiceError.InvalidField,
        parts: [MultipartForm.Part],
        contents: [[UInt8]],
        delimiter: [UInt8]
    ) -> String? {
        guard error.endpoint == "MultipartForm", !error.reason.isEmpty,
            error.description.contains(error.field)
        else {
            return "a refusal that does not say where: \(error)"
        }
        for (index, part) in parts.enumerated() {
            if error.field == "parts[\(index)].contentType",
                let type = part.contentType,
                type.unicodeScalars.contains(where: RequestValidationInvariants.isControl)
            {
                return nil
            }
            if error.field == "parts[\(index)].content", holdsDelimiter(contents[index], delimiter) {
                return nil
            }
        }
        return "a refusal without a fault: \(error)"
    }

    /// RFC 2046's boundary: 1 to 70 characters of its set, not ending with a space.
    private static func isValid(boundary: String) -> Bool {
        let allowed = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? "
        return (1...70).contains(boundary.utf8.count)
            && boundary.unicodeScalars.allSatisfy(allowed.unicodeScalars.contains) && boundary.last != " "
    }

    /// Whether content holds the delimiter where a reader, lenient ones included, would take it for one: at its
    /// start, or after CR or LF.
    static func holdsDelimiter(_ content: [UInt8], _ delimiter: [UInt8]) -> Bool {
        content.indices.contains { index in
            (index == 0 || content[index - 1] == 0x0D || content[index - 1] == 0x0A)
                && content[index...].starts(with: delimiter)
        }
    }

    /// A name with `%22`, `%0D` and `%0A` decoded.
    private static func decoded(_ name: String) -> String {
        var bytes = Array(name.utf8)[...]
        var result: [UInt8] = []
        while let byte = bytes.first {
            if byte == UInt8(ascii: "%"), bytes.count >= 3 {
                let code = String(decoding: bytes.dropFirst().prefix(2), as: UTF8.self)
                if let replacement = ["22": UInt8(ascii: "\""), "0D": 0x0D, "0A": 0x0A][code] {
                    result.append(replacement)
                    bytes = bytes.dropFirst(3)
                    continue
                }
            }
            result.append(byte)
            bytes = bytes.dropFirst()
        }
        return String(decoding: result, as: UTF8.self)
    }
}
