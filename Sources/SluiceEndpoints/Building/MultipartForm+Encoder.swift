extension MultipartForm {
    /// Writes a ``MultipartForm`` as a `multipart/form-data` body (RFC 7578).
    ///
    /// Parts held in memory are copied once, into a body allocated at its exact size. When a part is a file on disk,
    /// the body is a stream instead: part headers, parts held in memory and file contents are read in turn as the
    /// transport asks for bytes, so a file is never copied into memory, and `Content-Length` is computed from the
    /// file sizes.
    ///
    /// Field names and file names are quoted, with `"`, CR and LF percent-encoded as HTML forms do. A part's content
    /// type holding a line break or another control character is refused, so that no header can be injected. A part
    /// held in memory whose content holds the delimiter (`--` and the boundary) at the start of a line is refused too,
    /// since the part would end there and what follows would read as parts of the content's choosing; a line starts
    /// after CR or LF alone as well, as lenient readers have it. A file streamed from disk is not read before it is
    /// sent, so nothing checks its content: the random default boundary is one no file holds by chance.
    public struct Encoder: RequestBody.Encoder, Sendable {
        /// The boundary between parts: 1 to 70 characters from RFC 2046's set; a random one by default.
        public var boundary: String

        /// Creates an encoder.
        ///
        /// - Parameter boundary: The boundary between parts; a random one by default.
        public init(boundary: String = "sluice-boundary-" + UUID().uuidString) {
            self.boundary = boundary
        }

        /// Writes a form.
        ///
        /// - Parameter value: A ``MultipartForm``.
        /// - Returns: The body, in memory or streamed, with its content type and boundary.
        /// - Throws: `EncodingError.invalidValue` when the value is not a form, the boundary is invalid, or a file is
        ///   missing; ``SluiceError`` with an ``SluiceError/invalidField`` naming the part, as `MultipartForm.parts[1].contentType`, when a part's
        ///   content type holds a control character, or as `MultipartForm.parts[1].content` when a part's content holds
        ///   the delimiter at the start of a line.
        public func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
            try SluiceError.reportingInvalidFields { try encodeForm(value) }
        }

        /// Writes a form, reporting a part it refuses as an ``InvalidFieldError``.
        private func encodeForm<T: Encodable>(_ value: T) throws -> RequestBody {
            guard let form = value as? MultipartForm else {
                throw EncodingError.invalidValue(
                    value,
                    EncodingError.Context(codingPath: [], debugDescription: "expected a MultipartForm, found \(T.self)")
                )
            }
            let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
            guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(allowed.contains),
                boundary.last != " "
            else {
                throw EncodingError.invalidValue(
                    boundary,
                    EncodingError.Context(
                        codingPath: [],
                        debugDescription: "the boundary \"\(boundary)\" is not 1 to 70 characters of RFC 2046's set"
                    )
                )
            }
            let segments = try self.segments(of: form)
            let contentType = "multipart/form-data; boundary=\(boundary)"
            let length = segments.reduce(0) { total, segment in
                switch segment {
                case .bytes(let bytes): total + bytes.count
                case .file(_, let size): total + size
                }
            }
            guard segments.contains(where: { if case .file = $0 { true } else { false } }) else {
                // One allocation of the body's exact size, into which each part's bytes are copied once.
                var data = Data(capacity: length)
                for case .bytes(let bytes) in segments {
                    data.append(bytes)
                }
                return .data(data, contentType: contentType)
            }
            return .stream(length: length, contentType: contentType) { SegmentInputStream(segments) }
        }

        /// The body as runs of bytes and files, in order: delimiters and part headers, and each part's content as a
        /// segment of its own, which refers to the part's bytes without copying them.
        func segments(of form: MultipartForm) throws -> [SegmentInputStream.Segment] {
            var segments: [SegmentInputStream.Segment] = []
            var pending = Data()
            let delimiter = Array("--\(boundary)".utf8)
            for (index, part) in form.parts.enumerated() {
                if let contentType = part.contentType {
                    try HeaderValidation.checkValue(
                        contentType,
                        of: "the content type of part \"\(part.name)\"",
                        endpoint: "MultipartForm",
                        field: "parts[\(index)].contentType"
                    )
                }
                pending.append(Data("--\(boundary)\r\n".utf8))
                var disposition = "Content-Disposition: form-data; name=\"\(escape(part.name))\""
                if let filename = part.filename {
                    disposition += "; filename=\"\(escape(filename))\""
                }
                pending.append(Data("\(disposition)\r\n".utf8))
                if let contentType = part.contentType {
                    pending.append(Data("Content-Type: \(contentType)\r\n".utf8))
                }
                pending.append(Data("\r\n".utf8))
                segments.append(.bytes(pending))
                pending = Data()
                switch part.content {
                case .data(let data):
                    if Self.holdsDelimiterAtALineStart(data, delimiter) {
                        throw InvalidFieldError(
                            endpoint: "MultipartForm",
                            field: "parts[\(index)].content",
                            reason: "the content of part \"\(part.name)\" holds the delimiter \"--\(boundary)\" at the "
                                + "start of a line, which would end the part there; choose another boundary"
                        )
                    }
                    segments.append(.bytes(data))
                case .file(let url):
                    let size: Int
                    do {
                        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                        size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                    } catch {
                        throw EncodingError.invalidValue(
                            url,
                            EncodingError.Context(
                                codingPath: [],
                                debugDescription: "the file of part \"\(part.name)\" cannot be read: \(url.path)"
                            )
                        )
                    }
                    segments.append(.file(url, size: size))
                }
                pending.append(Data("\r\n".utf8))
            }
            pending.append(Data("--\(boundary)--\r\n".utf8))
            segments.append(.bytes(pending))
            return segments
        }

        /// Whether the delimiter starts the content or follows a CR or LF in it.
        private static func holdsDelimiterAtALineStart(_ content: Data, _ delimiter: [UInt8]) -> Bool {
            content.withUnsafeBytes { bytes in
                var start = 0
                while bytes.count - start >= delimiter.count {
                    if bytes[start..<(start + delimiter.count)].elementsEqual(delimiter) {
                        return true
                    }
                    guard let lineEnd = bytes[start...].firstIndex(where: { $0 == 0x0D || $0 == 0x0A }) else {
                        return false
                    }
                    start = lineEnd + 1
                }
                return false
            }
        }

        private func escape(_ text: String) -> String {
            // Scalar by scalar: a quote followed by a combining mark is one Character, which a replacement by Character
            // would miss, leaving a bare quote in the header.
            var escaped = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": escaped.append(contentsOf: "%22".unicodeScalars)
                case "\r": escaped.append(contentsOf: "%0D".unicodeScalars)
                case "\n": escaped.append(contentsOf: "%0A".unicodeScalars)
                default: escaped.append(scalar)
                }
            }
            return String(escaped)
        }
    }
}
