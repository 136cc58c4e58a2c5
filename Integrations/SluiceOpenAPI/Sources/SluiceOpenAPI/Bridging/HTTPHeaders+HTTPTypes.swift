public import HTTPTypes
public import SluiceCore

extension HTTPHeaders {
    /// Sluice's header fields from swift-http-types' fields: every field, repeated names included, in order.
    ///
    /// ```swift
    /// let fields: HTTPFields = [.setCookie: "a=1", .setCookie: "b=2"]
    /// HTTPHeaders(fields).values(for: .setCookie)  // ["a=1", "b=2"]
    /// ```
    ///
    /// Every `HTTPFields` converts: its names are tokens, and its values hold no CR, LF or NUL. A field that goes
    /// into a request is checked again with the rest of the request (`URLRequest.init(_:baseURL:)`), against the
    /// characters Sluice refuses beyond those.
    ///
    /// - Parameter fields: The fields.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { HTTPHeaders.Field(name: Header($0.name.rawName), value: $0.value) })
    }
}

extension HTTPFields {
    /// swift-http-types' fields from Sluice's header fields: every field, repeated names included, in order, each
    /// name spelled as it was.
    ///
    /// ```swift
    /// let fields = try HTTPFields(["Accept": "application/json", "X-Trace": "7"])
    /// fields[.accept]  // "application/json"
    /// ```
    ///
    /// - Parameter headers: The fields.
    /// - Throws: `SluiceError` with code `build` and the field at fault in its `invalidField`, as a client refuses a
    ///   request's fields (`HTTPHeaders.validate(as:)`): a name that is not a token, a value with a control character.
    public init(_ headers: HTTPHeaders) throws(SluiceError) {
        try headers.validate(as: "HTTPHeaders")
        self.init()
        reserveCapacity(headers.fields.count)
        for field in headers.fields {
            // `validate(as:)` refused every name that is not a token, and every token is a name here.
            guard let name = HTTPField.Name(field.name.name) else {
                throw SluiceError(
                    invalidField: .init(endpoint: "HTTPHeaders", field: "headers", reason: "a name is not a token")
                )
            }
            append(HTTPField(name: name, value: field.value))
        }
    }
}
