public import HTTPTypes
public import SluiceCore

extension HTTPTypes.HTTPResponse {
    /// A swift-http-types response head from a Sluice response: its status, reason phrase and header fields, repeated
    /// names included, in order.
    ///
    /// ```swift
    /// let head = try HTTPTypes.HTTPResponse(SluiceCore.HTTPResponse(status: .notFound, headers: ["Age": "3"]))
    /// head.status  // 404 Not Found
    /// ```
    ///
    /// - Parameter response: The response; its body stays with it.
    /// - Throws: `SluiceError` with code `build` and the part at fault in its `invalidField`: a status code outside
    ///   100 to 999, or a field Sluice's checks refuse (see `HTTPFields.init(_:)`).
    public init(_ response: SluiceCore.HTTPResponse) throws(SluiceError) {
        try self.init(status: response.status, headers: response.headers)
    }

    /// A swift-http-types response head from a Sluice response whose body is still arriving.
    ///
    /// - Parameter response: The streamed response; its body stays with it.
    /// - Throws: What ``init(_:)-(SluiceCore.HTTPResponse)`` throws.
    public init(_ response: SluiceCore.HTTPResponse.Streamed) throws(SluiceError) {
        try self.init(status: response.status, headers: response.headers)
    }

    private init(status: HTTPStatus, headers: HTTPHeaders) throws(SluiceError) {
        guard (100...999).contains(status.code) else {
            throw SluiceError(
                invalidField: .init(
                    endpoint: "HTTPResponse",
                    field: "status",
                    reason: "\(status.code) is not a status code of three digits from 100 to 999"
                )
            )
        }
        self.init(
            status: Status(code: status.code, reasonPhrase: status.reasonPhrase),
            headerFields: try HTTPFields(headers)
        )
    }
}

extension SluiceCore.HTTPResponse {
    /// A Sluice response from a swift-http-types response head and its body: the status, with its reason phrase
    /// when the head has one, and every header field, repeated names included, in order.
    ///
    /// ```swift
    /// let head = HTTPTypes.HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"])
    /// let response = SluiceCore.HTTPResponse(head, body: Data("hello".utf8))
    /// response.headers[.contentType]  // "text/plain"
    /// ```
    ///
    /// - Parameters:
    ///   - response: The head.
    ///   - body: The body's bytes; none by default.
    ///   - url: The URL the response came from, when known.
    public init(_ response: HTTPTypes.HTTPResponse, body: Data = Data(), url: URL? = nil) {
        self.init(
            status: HTTPStatus(code: response.status.code, reasonPhrase: response.status.reasonPhrase),
            headers: HTTPHeaders(response.headerFields),
            body: body,
            url: url
        )
    }
}
