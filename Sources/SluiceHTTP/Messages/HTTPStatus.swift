/// An HTTP response status code.
///
/// Statuses are an open set: the common ones are static members, and any other is written as an integer
/// literal. Two statuses are equal when their codes are, whatever their reason phrases.
///
/// ```swift
/// switch response.status {
/// case .ok, .created: print("done")
/// case .notFound: print("missing")
/// default: print(response.status.kind == .serverError ? "try later" : "\(response.status)")
/// }
/// ```
public struct HTTPStatus: Sendable {
    /// The three-digit status code.
    public let code: Int

    /// The reason phrase: the one given, or else the registered one for the code (the IANA registry's, and
    /// `I'm a Teapot` for 418), or `unknown` for a code that has none.
    public let reasonPhrase: String

    /// Creates a status.
    ///
    /// - Parameters:
    ///   - code: The status code.
    ///   - reasonPhrase: The reason phrase; by default the registered phrase for the code, or `unknown`.
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        let given = reasonPhrase.flatMap { $0.isEmpty ? nil : $0 }
        self.reasonPhrase = given ?? HTTPStatus.registeredPhrase(for: code) ?? "unknown"
    }

    /// The class of a status, from its first digit.
    public enum Kind: Sendable, Hashable {
        /// 1xx: the request was received and is being processed.
        case informational
        /// 2xx: the request was received, understood and accepted.
        case successful
        /// 3xx: further action is needed to complete the request.
        case redirection
        /// 4xx: the request is wrong or cannot be fulfilled.
        case clientError
        /// 5xx: the server failed to fulfil a valid request.
        case serverError
        /// Any code outside 100 to 599.
        case invalid
    }

    /// The class of this status.
    public var kind: Kind {
        switch code {
        case 100..<200: .informational
        case 200..<300: .successful
        case 300..<400: .redirection
        case 400..<500: .clientError
        case 500..<600: .serverError
        default: .invalid
        }
    }

    /// Whether the status is 2xx.
    public var isSuccessful: Bool { kind == .successful }

    /// 200 OK.
    public static let ok = HTTPStatus(code: 200)
    /// 201 Created.
    public static let created = HTTPStatus(code: 201)
    /// 202 Accepted.
    public static let accepted = HTTPStatus(code: 202)
    /// 204 No Content.
    public static let noContent = HTTPStatus(code: 204)
    /// 206 Partial Content.
    public static let partialContent = HTTPStatus(code: 206)
    /// 301 Moved Permanently.
    public static let movedPermanently = HTTPStatus(code: 301)
    /// 302 Found.
    public static let found = HTTPStatus(code: 302)
    /// 303 See Other.
    public static let seeOther = HTTPStatus(code: 303)
    /// 304 Not Modified.
    public static let notModified = HTTPStatus(code: 304)
    /// 307 Temporary Redirect.
    public static let temporaryRedirect = HTTPStatus(code: 307)
    /// 308 Permanent Redirect.
    public static let permanentRedirect = HTTPStatus(code: 308)
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(code: 400)
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(code: 403)
    /// 404 Not Found.
    public static let notFound = HTTPStatus(code: 404)
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 408 Request Timeout.
    public static let requestTimeout = HTTPStatus(code: 408)
    /// 409 Conflict.
    public static let conflict = HTTPStatus(code: 409)
    /// 410 Gone.
    public static let gone = HTTPStatus(code: 410)
    /// 412 Precondition Failed.
    public static let preconditionFailed = HTTPStatus(code: 412)
    /// 413 Content Too Large.
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatus(code: 422)
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(code: 500)
    /// 501 Not Implemented.
    public static let notImplemented = HTTPStatus(code: 501)
    /// 502 Bad Gateway.
    public static let badGateway = HTTPStatus(code: 502)
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatus(code: 503)
    /// 504 Gateway Timeout.
    public static let gatewayTimeout = HTTPStatus(code: 504)

    /// The phrase registered for a code, or `nil` when none is.
    ///
    /// The loopback server writes its status lines with it too.
    package static func registeredPhrase(for code: Int) -> String? {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 102: "Processing"
        case 103: "Early Hints"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 207: "Multi-Status"
        case 208: "Already Reported"
        case 226: "IM Used"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 305: "Use Proxy"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 402: "Payment Required"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 407: "Proxy Authentication Required"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 418: "I'm a Teapot"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 423: "Locked"
        case 424: "Failed Dependency"
        case 425: "Too Early"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        case 506: "Variant Also Negotiates"
        case 507: "Insufficient Storage"
        case 508: "Loop Detected"
        case 510: "Not Extended"
        case 511: "Network Authentication Required"
        default: nil
        }
    }
}

extension HTTPStatus: Hashable {
    /// Compares codes; reason phrases are ignored.
    ///
    /// - Parameters:
    ///   - lhs: A status.
    ///   - rhs: Another status.
    /// - Returns: Whether the codes are equal.
    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool {
        lhs.code == rhs.code
    }

    /// Hashes the code.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }
}

extension HTTPStatus: ExpressibleByIntegerLiteral {
    /// Creates a status from an integer literal, such as `418`.
    ///
    /// - Parameter value: The status code.
    public init(integerLiteral value: Int) {
        self.init(code: value)
    }
}

extension HTTPStatus: CustomStringConvertible {
    /// The code and reason phrase, such as `404 Not Found`, `418 I'm a Teapot` or `599 unknown`.
    public var description: String {
        "\(code) \(reasonPhrase)"
    }
}
