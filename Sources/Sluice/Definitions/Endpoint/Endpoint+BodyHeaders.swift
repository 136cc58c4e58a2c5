// How the headers a body brings meet the ones the definition sets.
//
// A header the definition sets wins, with two refinements that keep the body readable:
//
// - a `multipart/*` content type without a `boundary` parameter gets the encoder's boundary, since the parts
//   cannot be told apart without it;
// - a `Content-Length` must be the body's length when that is known: a mismatch fails the build stage instead of
//   sending a message that the server would cut short or wait on.
extension Endpoint {
    /// Sets `Content-Type` and, for a stream of known length, `Content-Length` for a body.
    ///
    /// - Parameters:
    ///   - body: The encoded body.
    ///   - request: The request, with the definition's headers already set.
    ///   - written: The headers the definition set, with the names as written.
    ///   - endpoint: The endpoint's name, for the error.
    /// - Throws: ``EndpointBuildError`` when the definition's `Content-Length` is not the body's length.
    static func setBodyHeaders(
        of body: RequestBody,
        on request: inout URLRequest,
        written: [Header: String],
        endpoint: String
    ) throws(EndpointBuildError) {
        if let encoded = body.contentType {
            if let index = written.index(forKey: .contentType) {
                let (header, value) = written[index]
                let sent = MediaType.addingBoundary(of: encoded, to: value)
                if sent != value {
                    request.setValue(sent, forHTTPHeaderField: header.name)
                }
            } else {
                request.setValue(encoded, forHTTPHeaderField: Header.contentType.name)
            }
        }
        let length: Int?
        switch body.content {
        case .data(let data): length = data.count
        case .stream(let streamLength, _): length = streamLength
        }
        guard let length else { return }
        guard let index = written.index(forKey: .contentLength) else {
            if case .stream = body.content {
                request.setValue(String(length), forHTTPHeaderField: Header.contentLength.name)
            }
            return
        }
        let (header, value) = written[index]
        // Digits only, as RFC 9110 writes the length: no sign or spaces.
        let digits = value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits, Int(value) == length else {
            throw EndpointBuildError(
                endpoint: endpoint,
                field: HeaderValidation.field(naming: header.name),
                reason: "the definition sets \"\(value)\", but the body is \(length) bytes long"
            )
        }
    }
}

/// The parameters of a media type such as `multipart/form-data; boundary=x`, as far as the builder needs them.
private enum MediaType {
    /// A `multipart/*` type without a `boundary` parameter with the encoder's `boundary` appended; any other type
    /// unchanged.
    ///
    /// - Parameters:
    ///   - encoded: The content type the encoder gave, which may hold a boundary.
    ///   - definition: The content type the definition sets.
    /// - Returns: The content type to send.
    static func addingBoundary(of encoded: String, to definition: String) -> String {
        let parts = split(definition)
        guard parts[0].lowercased().hasPrefix("multipart/"), !parts.dropFirst().contains(where: isBoundary),
            let boundary = split(encoded).dropFirst().first(where: isBoundary)
        else {
            return definition
        }
        var kept = Substring(definition)
        while let last = kept.last, last == ";" || last == " " || last == "\t" {
            kept.removeLast()
        }
        return "\(kept); \(boundary)"
    }

    /// The type and each parameter, trimmed, split at the semicolons outside quoted strings.
    private static func split(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";", !quoted {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    /// Whether a parameter is `boundary=…`, its name compared ignoring case.
    private static func isBoundary(_ parameter: String) -> Bool {
        let name = parameter.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces)
        return parameter.contains("=") && name.lowercased() == "boundary"
    }
}
