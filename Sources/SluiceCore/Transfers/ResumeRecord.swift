/// What a later download needs to resume a partial file: the validator of the representation it holds, sent back in
/// `If-Range`, and the representation's length when the server gave it.
///
/// It is kept beside the partial file, as JSON, in `<destination>.part.resume`. A download writes it when a response's
/// head arrives with a validator, before the first byte of the body, and removes it with the partial file.
struct ResumeRecord: Codable, Sendable, Hashable {
    /// The header field the validator came from.
    enum Field: String, Codable, Sendable {
        case eTag = "ETag"
        case lastModified = "Last-Modified"

        var header: Header {
            switch self {
            case .eTag: .eTag
            case .lastModified: .lastModified
            }
        }
    }

    /// The field the validator came from: a strong `ETag` when the response had one, `Last-Modified` otherwise.
    var field: Field
    /// The validator, sent as `If-Range` to resume.
    var validator: String
    /// The length of the whole representation, when known.
    var completeLength: Int64?

    /// The record for a response, or `nil` when it has no validator a range request may use: a weak `ETag`
    /// (`W/"…"`) cannot be sent in `If-Range` (RFC 9110, section 13.1.5), so only `Last-Modified` can stand in for it.
    ///
    /// A body with a `Content-Encoding` cannot be resumed either: the transport may decode it, and then the partial
    /// file's size counts decoded bytes where a `Range` counts encoded ones.
    init?(headers: HTTPHeaders, completeLength: Int64?) {
        if headers.contentIsEncoded {
            return nil
        } else if let eTag = headers[.eTag], !eTag.hasPrefix("W/"), !eTag.isEmpty {
            field = .eTag
            validator = eTag
        } else if let lastModified = headers[.lastModified], !lastModified.isEmpty {
            field = .lastModified
            validator = lastModified
        } else {
            return nil
        }
        self.completeLength = completeLength
    }

    /// The validator a partial response carries in place of the recorded one, when it carries another: the bytes
    /// it holds then belong to another representation.
    func replacement(in headers: HTTPHeaders) -> String? {
        guard let value = headers[field.header], value != validator else { return nil }
        return value
    }

    /// The record at a location, or `nil` when there is none or it cannot be read.
    static func load(from url: URL) -> ResumeRecord? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDocumentDecoder().decode(ResumeRecord.self, from: data)
    }

    /// Writes the record, replacing any earlier one in one step.
    func save(to url: URL) throws(FileFailure) {
        // Encoding two strings and a number cannot fail.
        guard let data = try? JSONEncoder().encode(self) else { return }
        let temporary = url.appendingPathExtension("new")
        let file = try PartialFile(opening: temporary)
        defer { file.closeDescriptor() }
        do {
            try file.truncateToEmpty()
            try file.append(data)
        } catch {
            PartialFile.remove(temporary)
            throw error
        }
        file.closeDescriptor()
        try PartialFile.move(temporary, to: url)
    }
}

extension HTTPHeaders {
    /// Whether the content has a coding other than `identity`, such as `gzip`: its bytes on the wire are not the
    /// bytes a transport that decodes it hands out.
    var contentIsEncoded: Bool {
        guard let coding = self[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return !coding.isEmpty && coding != "identity"
    }
}
