/// The one request builder that every dialect compiles to: ``Endpoint``, ``APIDefinition`` and the repository
/// layer's ``EndpointDefinition`` describe their parts, and this builds the `URLRequest` from them, so that the same
/// endpoint builds the same request in every dialect.
///
/// The rules, in the order they are applied:
///
/// - the path, already percent-encoded, is appended to the base URL's path (a leading `/` does not replace it);
/// - query parameters are percent-encoded as the ``QueryEncoding`` says and added after any query the base URL has;
/// - the method is set as given;
/// - the timeout, when given, must be positive and becomes the request's `timeoutInterval`;
/// - headers are set in the order of their names, ignoring case; a name given twice in any case, a name that is
///   not a token and a value holding a control character each fail the build;
/// - the body (form parameters or an encoded body, never both) is set with the `Content-Type` it needs, and
///   `Content-Length` for a stream of known length; a header given here wins, as ``RequestBody`` describes.
///
/// Every failure is a ``SluiceError`` whose ``SluiceError/invalidField`` names the endpoint and the field.
struct RequestBuilder {
    /// A body to send.
    enum Body {
        /// No body.
        case none
        /// Form parameters, sent as `application/x-www-form-urlencoded`.
        case form([QueryPair])
        /// A body an encoder has made, or an error saying why it could not be made.
        case encoded(Result<RequestBody, InvalidFieldError>)
    }

    /// The endpoint's name, as errors start.
    var endpoint: String
    /// The base URL the path is appended to.
    var baseURL: URL
    /// The request method.
    var method: HTTPMethod
    /// The path, percent-encoded.
    var path: String
    /// The query parameters, in order.
    var query: [QueryPair] = []
    /// How query and form parameters are written.
    var queryEncoding: QueryEncoding = .default
    /// The headers as written; a `nil` value leaves the header out, but its name still counts for duplicates.
    var headers: [(name: String, value: String?)] = []
    /// The body.
    var body: Body = .none
    /// The idle timeout, or `nil` for the session's default.
    var timeout: Duration?

    /// Builds the request.
    ///
    /// - Returns: The request.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint and the field that could not be built.
    /// A path template after a base URL's path, joined as ``build()`` joins the path: `/v2` and `users/{id}` make
    /// `/v2/users/{id}`.
    static func template(_ template: String, on baseURL: URL) -> String {
        let base = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
        return base + "/" + template.drop { $0 == "/" }
    }

    func build() throws(InvalidFieldError) -> URLRequest {
        let encodedQuery = queryEncoding.encode(query, spaceAsPlus: queryEncoding.spaces.asPlus)
        guard let url = baseURL.appending(encodedPath: path, encodedQuery: encodedQuery) else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: "path",
                reason: "\"\(path)\" does not make a valid URL with \(baseURL)"
            )
        }
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        try request.setTimeout(timeout, endpoint: endpoint)
        var written: [Header: (name: String, value: String)] = [:]
        for (name, value) in try orderedHeaders() {
            guard let value else { continue }
            try HeaderValidation.check(name: name, value: value, endpoint: endpoint)
            request.setValue(value, forHTTPHeaderField: name)
            written[Header(name)] = (name, value)
        }
        if let body = try encodedBody() {
            try setBody(body, on: &request, written: written)
        }
        return request
    }

    /// The headers sorted by name ignoring case, after checking that no name is given twice.
    private func orderedHeaders() throws(InvalidFieldError) -> [(name: String, value: String?)] {
        var first: [Header: String] = [:]
        for (name, _) in headers {
            if let earlier = first[Header(name)] {
                throw InvalidFieldError(
                    endpoint: endpoint,
                    field: HeaderValidation.field(naming: earlier),
                    reason: "the definition sets the header twice, as \"\(earlier)\" and \"\(name)\"; "
                        + "header names are compared ignoring case"
                )
            }
            first[Header(name)] = name
        }
        return headers.sorted { Header($0.name).canonicalName < Header($1.name).canonicalName }
    }

    /// The body to send, or `nil` when there is none.
    private func encodedBody() throws(InvalidFieldError) -> RequestBody? {
        switch body {
        case .none:
            return nil
        case .form(let pairs):
            guard !pairs.isEmpty else { return nil }
            let text = queryEncoding.encode(pairs, spaceAsPlus: true)
            return .data(Data(text.utf8), contentType: "application/x-www-form-urlencoded")
        case .encoded(let result):
            return try result.get()
        }
    }

    /// The percent-encoded text of one path segment, after checking that it cannot change the path's shape.
    ///
    /// - Parameters:
    ///   - text: The segment's value, unencoded.
    ///   - endpoint: The endpoint's name, for the error.
    ///   - field: The field the value comes from, such as `pathComponents.eventId`.
    /// - Returns: The encoded segment.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` when the value is empty, `.` or `..`.
    static func pathSegment(_ text: String, endpoint: String, field: String) throws(InvalidFieldError) -> String {
        guard !text.isEmpty, text != ".", text != ".." else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: field,
                reason: text.isEmpty
                    ? "the path value is empty, which would leave an empty segment"
                    : "the path value \"\(text)\" would change the path's shape"
            )
        }
        return PercentEncoding.encode(text, spaceAsPlus: false)
    }
}
