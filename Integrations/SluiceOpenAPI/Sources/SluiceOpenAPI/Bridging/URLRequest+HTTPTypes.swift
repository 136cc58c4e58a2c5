public import HTTPTypes
public import SluiceCore

extension URLRequest {
    /// A `URLRequest` from a swift-http-types request: its method, its URL, and its header fields; the body is set
    /// apart (`setBody(_:length:)`).
    ///
    /// ```swift
    /// let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items/42?fields=name")
    /// let request = try URLRequest(head, baseURL: URL(string: "https://api.example.com/v1")!)
    /// request.url  // https://api.example.com/v1/items/42?fields=name
    /// ```
    ///
    /// With a `baseURL`, the URL is joined as swift-openapi-runtime's transports join it: the request's path is
    /// appended to the base URL's path as it is, percent-encoded, and the request's query replaces the base URL's.
    /// Without one, it is the request's scheme, authority and path.
    ///
    /// A name given more than once is sent once, its values joined in order by `, ` (by `; ` for `Cookie`, as
    /// RFC 9113 joins them), since a `URLRequest` holds each name once.
    ///
    /// - Parameters:
    ///   - request: The request's head.
    ///   - baseURL: The server's URL that the request's path is relative to, or `nil` for the request's own.
    /// - Throws: `SluiceError` with code `build` and the part at fault in its `invalidField`: a path that is not a
    ///   URL's path and query, a request with neither a base URL nor a scheme and authority, and what a client refuses
    ///   in any request (`URLRequest.validate(as:)`), with the same error.
    public init(_ request: HTTPRequest, baseURL: URL? = nil) throws(SluiceError) {
        self.init(url: try URLRequest.url(of: request, baseURL: baseURL))
        httpMethod = request.method.rawValue
        var joined: [(name: HTTPField.Name, values: [String])] = []
        for field in request.headerFields {
            if let index = joined.firstIndex(where: { $0.name == field.name }) {
                joined[index].values.append(field.value)
            } else {
                joined.append((field.name, [field.value]))
            }
        }
        for (name, values) in joined {
            setValue(values.joined(separator: name == .cookie ? "; " : ", "), forHTTPHeaderField: name.rawName)
        }
        try validate(as: "HTTPRequest")
    }

    /// The URL a request goes to: joined to the base URL as the runtime's transports join it, or the request's own.
    private static func url(of request: HTTPRequest, baseURL: URL?) throws(SluiceError) -> URL {
        let path = request.path ?? ""
        guard let relative = URLComponents(string: path), relative.scheme == nil, relative.host == nil else {
            throw SluiceError(
                invalidField: .init(
                    endpoint: "HTTPRequest",
                    field: "path",
                    reason:
                        "\(String(reflecting: path)) is not a path and query: it names a scheme or a host of its own"
                )
            )
        }
        var components: URLComponents
        if let baseURL {
            guard let base = URLComponents(url: baseURL, resolvingAgainstBaseURL: true), base.host?.isEmpty == false
            else {
                throw SluiceError(
                    invalidField: .init(
                        endpoint: "HTTPRequest",
                        field: "baseURL",
                        reason: "\(baseURL.absoluteString) has no host to send the request to"
                    )
                )
            }
            components = base
            components.percentEncodedPath += relative.percentEncodedPath
        } else {
            guard let scheme = request.scheme, let authority = request.authority,
                let origin = URLComponents(string: "\(scheme)://\(authority)"), origin.host?.isEmpty == false
            else {
                throw SluiceError(
                    invalidField: .init(
                        endpoint: "HTTPRequest",
                        field: "authority",
                        reason: "the request names no scheme and authority to send it to, and no base URL is given"
                    )
                )
            }
            components = origin
            components.percentEncodedPath = relative.percentEncodedPath
        }
        components.percentEncodedQuery = relative.percentEncodedQuery
        guard let url = components.url else {
            throw SluiceError(
                invalidField: .init(
                    endpoint: "HTTPRequest",
                    field: "path",
                    reason: "\(String(reflecting: path)) does not join \(baseURL?.absoluteString ?? "its authority") "
                        + "into a URL"
                )
            )
        }
        return url
    }
}

extension HTTPRequest {
    /// A swift-http-types request head from a `URLRequest`: its method, scheme, authority, path and query, and its
    /// header fields in the order of their names; the body stays with the `URLRequest`.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/items?tag=new")!)
    /// request.setValue("application/json", forHTTPHeaderField: "Accept")
    /// let head = try HTTPRequest(request)
    /// head.path  // "/items?tag=new"
    /// ```
    ///
    /// - Parameter request: The request.
    /// - Throws: `SluiceError` with code `build` and the part at fault in its `invalidField`: what a client refuses in
    ///   any request (`URLRequest.validate(as:)`), with the same error, and a URL with no scheme or host.
    public init(_ request: URLRequest) throws(SluiceError) {
        try request.validate(as: "URLRequest")
        guard let url = request.url, let scheme = url.scheme, let host = url.host(percentEncoded: true) else {
            throw SluiceError(
                invalidField: .init(
                    endpoint: "URLRequest",
                    field: "url",
                    reason: "\(request.url?.absoluteString ?? "nothing") has no scheme and host to send the request to"
                )
            )
        }
        // `validate(as:)` refused a method that is not a token, and every token is a method here.
        guard let method = HTTPRequest.Method(request.httpMethod ?? "GET") else {
            throw SluiceError(
                invalidField: .init(endpoint: "URLRequest", field: "method", reason: "the method is not a token")
            )
        }
        let authority = url.port.map { "\(URLRequest.bracketed(host)):\($0)" } ?? URLRequest.bracketed(host)
        var path = url.path(percentEncoded: true)
        if path.isEmpty {
            path = "/"
        }
        if let query = url.query(percentEncoded: true) {
            path += "?" + query
        }
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
        self.init(
            method: method,
            scheme: scheme,
            authority: authority,
            path: path,
            headerFields: try HTTPFields(HTTPHeaders(fields.map { HTTPHeaders.Field(Header($0.key), $0.value) }))
        )
    }
}

extension URLRequest {
    /// A host as an authority writes it: an IPv6 address in brackets.
    fileprivate static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
