extension SluiceError: CustomStringConvertible {
    /// The error as a compiler-style diagnostic: what went wrong, the request and where in the body, then what
    /// the failing stage knew.
    ///
    /// Every line after the first two sits in the gutter (`   | `), the further lines of a message that has several
    /// included; an underlying error is shown under `caused by:` only when the message does not already say it.
    public var description: String {
        let redactor = self.redactor
        let messageLines = redactor.text(message).split(separator: "\n", omittingEmptySubsequences: false)
        var lines = ["error: \(messageLines[0])"]
        var location = "  --> "
        if let request = unredactedRequest {
            location += "\(request.httpMethod ?? "GET") \(redactor.url(request.url))"
        } else {
            location += "(request not built)"
        }
        if let jsonError {
            location += ", body line \(jsonError.line), column \(jsonError.column) (byte \(jsonError.offset))"
        } else if let jsonPath {
            location += " at \(jsonPath)"
        }
        lines.append(location + " [stage: \(stage)]")
        lines.append("   |")
        // Adds text to the gutter, each of its lines.
        func gutter(_ text: some StringProtocol) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append("   | \(line)")
            }
        }
        for line in messageLines.dropFirst() {
            gutter(line)
        }
        if let jsonError {
            lines += QuotedSource.lines(
                number: jsonError.line,
                source: jsonError.sourceLine,
                caretColumn: jsonError.excerptColumn
            )
        }
        if let status {
            gutter("status: \(status)")
        }
        if code == .status || code == .deserialize || code == .parse, let bodyExcerpt = excerpt(redactedBy: redactor) {
            gutter("body: \(bodyExcerpt)")
        }
        if let errorResponse {
            gutter("error response: \(errorResponse)")
        }
        if let errorResponseDecodingError {
            gutter("error response did not decode: \(SluiceError.describe(errorResponseDecodingError))")
        }
        if !attemptFailures.isEmpty {
            let numbered = attemptFailures.enumerated().map { "\($0.offset + 1): \($0.element)" }
            gutter("after \(attempts) attempts; earlier ones failed with " + numbered.joined(separator: "; "))
        }
        if code == .transport || code == .build || code == .cancelled || code == .timedOut,
            let underlyingError
        {
            let cause = SluiceError.describe(underlyingError)
            if !message.contains(cause) {
                gutter("caused by: \(redactor.text(cause))")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func defaultMessage(code: Code, stage: Stage, response: HTTPResponse?, underlying: (any Error)?) -> String {
        switch code {
        case .status:
            return "unacceptable status \(response.map { String(describing: $0.status) } ?? "")"
        case .cancelled:
            return "the request was cancelled during the \(stage) stage"
        case .timedOut:
            return "the request timed out during the \(stage) stage"
        case .deserialize:
            if let jsonError = underlying.flatMap(jsonError(in:)) {
                return "invalid JSON in the response body: \(jsonError.reason)"
            }
            return "cannot deserialize the response body: \(underlying.map(describe) ?? "unknown error")"
        case .parse:
            return "cannot parse the response: \(underlying.map(describe) ?? "unknown error")"
        case .build:
            return "cannot build the request: \(underlying.map(describe) ?? "unknown error")"
        default:
            return "the request failed: \(underlying.map(describe) ?? "unknown error")"
        }
    }

    /// A one-line account of an underlying error: a decoding error's message without its path (the location
    /// line shows the path), what was wrong with bytes that are not JSON, a URL error's code and text, or the error's
    /// description.
    package static func describe(_ error: any Error) -> String {
        if let jsonError = jsonError(in: error) {
            return jsonError.reason
        }
        switch error {
        case let decodingError as DecodingError:
            switch decodingError {
            case .keyNotFound(let key, _):
                return "no value for key \"\(key.stringValue)\""
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                return context.debugDescription
            @unknown default:
                return String(describing: decodingError)
            }
        case let urlError as URLError:
            return "URLError \(urlError.code.rawValue): \(urlError.localizedDescription)"
        case let sluiceError as SluiceError:
            return sluiceError.message
        default:
            return String(describing: error)
        }
    }
}

extension SluiceError: LocalizedError {
    /// The diagnostic, for `localizedDescription`.
    public var errorDescription: String? { description }
}
