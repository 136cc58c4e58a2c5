extension HTTPResponse {
    /// Creates a response from URLSession's, with the headers sorted by name (URLSession does not keep their
    /// order).
    init(_ response: HTTPURLResponse, body: Data) {
        var headers = HTTPHeaders()
        let fields = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            headers.add(value, for: Header(name))
        }
        self.init(status: HTTPStatus(code: response.statusCode), headers: headers, body: body, url: response.url)
    }
}

extension StreamedHTTPResponse {
    /// Creates a streamed response from URLSession's head and a body still arriving.
    init(_ response: HTTPURLResponse, body: HTTPBody) {
        let head = HTTPResponse(response, body: Data())
        self.init(status: head.status, headers: head.headers, url: head.url, body: body)
    }
}
