// How the headers a body brings meet the ones the definition sets.
//
// A header the definition sets wins, with two refinements that keep the body readable:
//
// - a `multipart/*` content type without a `boundary` parameter gets the encoder's boundary, since the parts
//   cannot be told apart without it;
// - a `Content-Length` must be the body's length when that is known: a mismatch fails the build stage instead of
//   sending a message that the server would cut short or wait on.
extension RequestBuilder {
    /// The encoder of JSON bodies that name none of their own: a `JSONEncoder` writing keys in sorted order, so that
    /// the same value always makes the same bytes, in every dialect.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// Encodes a body with its encoder, naming the endpoint's field at fault when it fails.
    ///
    /// - Parameters:
    ///   - body: The body.
    ///   - encoder: Its encoder.
    ///   - endpoint: The endpoint's name, for the error.
    ///   - field: The field the body is, such as `body`.
    /// - Returns: The encoded body, or the error saying why it could not be encoded.
    static func encode(
        _ body: some Encodable,
        with encoder: some RequestBody.Encoder,
        endpoint: String,
        field: String = "body"
    ) -> Body {
        do {
            return .encoded(.success(try encoder.encodeBody(body)))
        } catch {
            if let inner = (error as? SluiceError)?.invalidField {
                // The encoder named the field of the body at fault; it is a field of this endpoint's body.
                let named = InvalidFieldError(
                    endpoint: endpoint,
                    field: "\(field).\(inner.field)",
                    reason: inner.reason
                )
                return .encoded(.failure(named))
            }
            let reason = "the encoder rejected it: \(error)"
            let rejected = InvalidFieldError(endpoint: endpoint, field: field, reason: reason)
            return .encoded(.failure(rejected))
        }
    }

    /// Sets a body on the request, with `Content-Type` and, for a stream of known length, `Content-Length`.
    ///
    /// - Parameters:
    ///   - body: The encoded body.
    ///   - request: The request, with the definition's headers already set.
    ///   - written: The headers the definition set, by name, with the names as written.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` when the definition's `Content-Length` is not the body's length, or a
    ///   stream cannot be opened.
    func setBody(
        _ body: RequestBody,
        on request: inout URLRequest,
        written: [Header: (name: String, value: String)]
    ) throws(InvalidFieldError) {
        if let encoded = body.contentType {
            if let (name, value) = written[.contentType] {
                let sent = MediaType.addingBoundary(of: encoded, to: value)
                if sent != value {
                    request.setValue(sent, forHTTPHeaderField: name)
                }
            } else {
                request.setValue(encoded, forHTTPHeaderField: Header.contentType.name)
            }
        }
        let length: Int? =
            switch body.content {
            case .data(let data): data.count
            case .stream(let streamLength, _): streamLength
            }
        try checkLength(length, of: body, on: &request, written: written)
        switch body.content {
        case .data(let data):
            request.httpBody = data
        case .stream(_, let make):
            do {
                request.httpBodyStream = try make()
            } catch {
                throw InvalidFieldError(
                    endpoint: endpoint,
                    field: "body",
                    reason: "the body stream could not be opened: \(error)"
                )
            }
        }
    }

    /// Sets `Content-Length` for a stream of known length, or checks the one the definition sets.
    private func checkLength(
        _ length: Int?,
        of body: RequestBody,
        on request: inout URLRequest,
        written: [Header: (name: String, value: String)]
    ) throws(InvalidFieldError) {
        guard let length else { return }
        guard let (name, value) = written[.contentLength] else {
            if case .stream = body.content {
                request.setValue(String(length), forHTTPHeaderField: Header.contentLength.name)
            }
            return
        }
        // Digits only, as RFC 9110 writes the length: no sign or spaces.
        let digits = value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits, Int(value) == length else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: HeaderValidation.field(naming: name),
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
