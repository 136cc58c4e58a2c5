extension Endpoint {
    /// Builds the request from ``definition`` and the endpoint's values, on the definition's server or, when it
    /// names none, on ``Server/effectiveDefault``.
    ///
    /// - Returns: The request: the server's base URL with the path and query, the method, the headers and the
    ///   body.
    /// - Throws: ``EndpointBuildError`` naming the endpoint and the field that could not be built, or
    ///   ``ServerError`` when the server has no base URL for its environment.
    public func build() throws -> URLRequest {
        try build(on: Self.definition.server ?? .effectiveDefault)
    }

    /// Builds the request on a given server, whatever the definition names.
    ///
    /// - Parameter server: The server whose base URL the path is resolved against.
    /// - Returns: The request.
    /// - Throws: ``EndpointBuildError`` naming the endpoint and the field that could not be built, or
    ///   ``ServerError`` when the server has no base URL for its environment.
    public func build(on server: Server) throws -> URLRequest {
        let definition = Self.definition
        let name = String(describing: Self.self)
        let base = try server.baseURL()
        let path = try definition.path.render(pathComponents, endpoint: name)

        var query: [QueryPair] = []
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
            guard let text = try Self.parameterValues(value, field: "parameters.\(key)", name) else { continue }
            let pair = QueryPair(name: key, values: text.values, isArray: text.isArray)
            if inQuery {
                query.append(pair)
            } else {
                form.append(pair)
            }
        }

        let encodedQuery = definition.queryEncoding.encode(query, spaceAsPlus: definition.queryEncoding.spaces.asPlus)
        guard let url = base.appending(encodedPath: path, encodedQuery: encodedQuery) else {
            throw EndpointBuildError(endpoint: name, field: "path", reason: "\"\(path)\" does not make a valid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = definition.method.rawValue
        try request.setTimeout(definition.timeout, endpoint: name)

        var written: [Header: String] = [:]
        for (header, field) in try definition.headers.inOrder(endpoint: name) {
            let value: String
            switch field {
            case .fieldValue(let fixed):
                value = fixed
            case .field(let keyPath):
                guard let read = unwrapOptionals(headerValues[keyPath: keyPath]) else { continue }
                guard let representable = read as? any PathRepresentable else {
                    throw EndpointBuildError(
                        endpoint: name,
                        field: HeaderValidation.field(naming: header.name),
                        reason: "a value of type \(type(of: read)) is not PathRepresentable"
                    )
                }
                value = representable.pathValue
            }
            try HeaderValidation.check(name: header.name, value: value, endpoint: name)
            request.setValue(value, forHTTPHeaderField: header.name)
            written[header] = value
        }

        let encodedBody = try bodyToSend(formPairs: form, encoding: definition.queryEncoding, endpoint: name)
        if let encodedBody {
            try Self.setBodyHeaders(of: encodedBody, on: &request, written: written, endpoint: name)
            switch encodedBody.content {
            case .data(let data):
                request.httpBody = data
            case .stream(_, let make):
                do {
                    request.httpBodyStream = try make()
                } catch {
                    throw EndpointBuildError(
                        endpoint: name,
                        field: "body",
                        reason: "the body stream could not be opened: \(error)"
                    )
                }
            }
        }
        return request
    }

    /// The form body, or the encoded ``Body``, or `nil` when there is neither.
    private func bodyToSend(
        formPairs: [QueryPair],
        encoding: QueryEncoding,
        endpoint name: String
    ) throws -> RequestBody? {
        let hasBody = Body.self != EmptyCodable.self
        if !formPairs.isEmpty {
            guard !hasBody else {
                throw EndpointBuildError(
                    endpoint: name,
                    field: "body",
                    reason: "the definition has form parameters and the endpoint a body; a request carries one body"
                )
            }
            let text = encoding.encode(formPairs, spaceAsPlus: true)
            return .data(Data(text.utf8), contentType: "application/x-www-form-urlencoded")
        }
        guard hasBody else { return nil }
        do {
            return try bodyEncoder.encodeBody(body)
        } catch let error as EndpointBuildError {
            // The encoder named the field of the body at fault; it is a field of this endpoint's body.
            throw EndpointBuildError(endpoint: name, field: "body.\(error.field)", reason: error.reason)
        } catch {
            throw EndpointBuildError(endpoint: name, field: "body", reason: "the encoder rejected it: \(error)")
        }
    }

    /// The text of a parameter's value: one value, or each element of an array; `nil` for an empty optional.
    private static func parameterValues(
        _ value: Any,
        field: String,
        _ endpoint: String
    ) throws -> (values: [String], isArray: Bool)? {
        guard let value = unwrapOptionals(value) else { return nil }
        if let single = value as? any PathRepresentable {
            return ([single.pathValue], false)
        }
        if let array = value as? [Any] {
            var values: [String] = []
            for (index, element) in array.enumerated() {
                guard let element = unwrapOptionals(element) else { continue }
                guard let representable = element as? any PathRepresentable else {
                    throw EndpointBuildError(
                        endpoint: endpoint,
                        field: "\(field)[\(index)]",
                        reason: "a value of type \(type(of: element)) is not PathRepresentable"
                    )
                }
                values.append(representable.pathValue)
            }
            return (values, true)
        }
        throw EndpointBuildError(
            endpoint: endpoint,
            field: field,
            reason: "a value of type \(type(of: value)) is neither PathRepresentable nor an array of such values"
        )
    }

}
