extension Endpoint {
    /// The definition's path template after the path of its server's base URL, such as `/v2/users/{id}`; `nil` when
    /// the server has no base URL.
    public var urlTemplate: String? {
        guard let baseURL = try? (Self.definition.server ?? .default).baseURL() else { return nil }
        return RequestBuilder.template(Self.definition.path.template, on: baseURL)
    }

    /// Builds the request from ``definition`` and the endpoint's values, on the definition's server or, when it
    /// names none, on ``Server/default``.
    ///
    /// - Returns: The request: the server's base URL with the path and query, the method, the headers and the
    ///   body.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint and the field that could not be built, or
    ///   ``Server/MissingBaseURL`` when the server has no base URL for its environment.
    public func build() throws -> URLRequest {
        try build(on: Self.definition.server ?? .default)
    }

    /// Builds the request on a given server, whatever the definition names.
    ///
    /// The definition and the endpoint's values are read here; the request builder that every dialect shares
    /// joins them into the request.
    ///
    /// - Parameter server: The server whose base URL the path is resolved against.
    /// - Returns: The request.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the endpoint and the field that could not be built, or
    ///   ``Server/MissingBaseURL`` when the server has no base URL for its environment.
    public func build(on server: Server) throws -> URLRequest {
        try SluiceError.reportingInvalidFields {
            let definition = Self.definition
            let name = String(describing: Self.self)
            var builder = RequestBuilder(
                endpoint: name,
                baseURL: try server.baseURL(),
                method: definition.method,
                path: try definition.path.render(pathComponents, endpoint: name)
            )
            builder.queryEncoding = definition.queryEncoding
            builder.timeout = definition.timeout

            var form: [QueryPair] = []
            for parameter in definition.parameters {
                // A value read by key path and a fixed one follow the same rules: a nil optional is left out.
                let (key, value, inQuery): (String, Any, Bool) =
                    switch parameter {
                    case .query(let key, let keyPath): (key, parameters[keyPath: keyPath], true)
                    case .queryValue(let key, let value): (key, value, true)
                    case .form(let key, let keyPath): (key, parameters[keyPath: keyPath], false)
                    case .formValue(let key, let value): (key, value, false)
                    }
                guard let pair = try Self.parameterPair(key, value, endpoint: name) else { continue }
                if inQuery {
                    builder.query.append(pair)
                } else {
                    form.append(pair)
                }
            }

            for (header, field) in definition.headers {
                switch field {
                case .fieldValue(let fixed):
                    builder.headers.append((header.name, fixed))
                case .field(let keyPath):
                    let field = HeaderValidation.field(naming: header.name)
                    let value = try pathText(of: headerValues[keyPath: keyPath], endpoint: name, field: field)
                    builder.headers.append((header.name, value))
                }
            }

            let hasBody = Body.self != EmptyCodable.self
            if !form.isEmpty {
                guard !hasBody else {
                    throw InvalidFieldError(
                        endpoint: name,
                        field: "body",
                        reason: "the definition has form parameters and the endpoint a body; a request carries one body"
                    )
                }
                builder.body = .form(form)
            } else if hasBody {
                builder.body = RequestBuilder.encode(body, with: bodyEncoder, endpoint: name)
            }
            return try builder.build()
        }
    }

    /// A parameter's name and text: one value, or each element of an array; `nil` for an empty optional.
    private static func parameterPair(_ key: String, _ value: Any, endpoint: String) throws -> QueryPair? {
        let field = "parameters.\(key)"
        guard let value = unwrapOptionals(value) else { return nil }
        if let single = value as? any PathRepresentable {
            return QueryPair(name: key, values: [single.pathValue], isArray: false)
        }
        guard let array = value as? [Any] else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: field,
                reason: "a value of type \(type(of: value)) is neither PathRepresentable nor an array of such values"
            )
        }
        var values: [String] = []
        for (index, element) in array.enumerated() {
            if let text = try pathText(of: element, endpoint: endpoint, field: "\(field)[\(index)]") {
                values.append(text)
            }
        }
        return QueryPair(name: key, values: values, isArray: true)
    }
}
