extension HTTPResponse {
    /// Creates a response from URLSession's, with the headers sorted by name (URLSession does not keep their
    /// order).
    init(_ response: HTTPURLResponse, body: Data) {
        // Each name is lowercased once, when its Header is made, rather than at every comparison of the sort; the
        // values are strings, described only if one is not.
        let fields = response.allHeaderFields.compactMap { key, value -> HTTPHeaders.Field? in
            guard let name = key as? String else { return nil }
            return HTTPHeaders.Field(name: Header(name), value: value as? String ?? "\(value)")
        }
        self.init(
            status: HTTPStatus(code: response.statusCode),
            headers: HTTPHeaders(fields.sorted { $0.name.canonicalName < $1.name.canonicalName }),
            body: body,
            url: response.url
        )
    }
}

extension HTTPResponse.Streamed {
    /// Creates a streamed response from URLSession's head and a body still arriving.
    init(_ response: HTTPURLResponse, body: HTTPBody) {
        let head = HTTPResponse(response, body: Data())
        self.init(status: head.status, headers: head.headers, url: head.url, body: body)
    }
}
