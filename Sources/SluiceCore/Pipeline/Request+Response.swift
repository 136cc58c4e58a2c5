extension Request {
    /// The build stage as a client runs it: the request's ``build()``, then the checks every request passes before
    /// a performer sees it (`URLRequest.validateForSending(as:)`), with a failure wrapped as
    /// ``SluiceError/Code/build``.
    package func buildStage() throws(SluiceError) -> URLRequest {
        do {
            let request = try build()
            try request.validate(as: String(describing: Self.self))
            return request
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.build, underlyingError: error)
        }
    }

    /// Runs the response stages on a body, with no network.
    ///
    /// The stages are those a client runs on a successful response's body: deserialize, parse with
    /// ``Request/ResponseParser``, then ``Request/parse(_:)``.
    ///
    /// ```swift
    /// let users = try ListUsers().responseObject(from: Data(#"[{"id": 1, "name": "Ada"}]"#.utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - body: The response body.
    ///   - deserializer: The deserializer to use when the request names none; a `JSONDeserializer` by default.
    /// - Returns: The response object.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/deserialize`` or ``SluiceError/Code/parse``.
    public func responseObject(
        from body: Data,
        deserializer: any Deserializer = JSONDeserializer()
    ) throws(SluiceError) -> ResponseObject {
        if let passedThrough = responseObject(passingThrough: body) {
            return passedThrough
        }
        var metrics = PipelineMetrics()
        let object = try ResponseStage.deserialize.run(timedInto: &metrics.deserialize) {
            try (self.deserializer ?? deserializer).deserialize(body)
        }
        return try ResponseStage.parse.run(timedInto: &metrics.parse) { try parse(ResponseParser.parse(object)) }
    }
}

/// A stage the client runs on a successful response's body, timed and with its failure wrapped: deserialize, or
/// parse (the request's parser, then its `parse`).
enum ResponseStage {
    case deserialize
    case parse

    /// Runs the stage's work, puts its time in `duration` whether it succeeds or fails, and wraps what it throws as
    /// a ``SluiceError`` with the stage's code; in the parse stage, a ``SluiceError`` the request threw passes through.
    ///
    /// With `tracing`, the stage is also a scope of the instrumentation, from the same instants.
    func run<Output>(
        timedInto duration: inout Duration,
        tracing: RequestTracing? = nil,
        _ work: () throws -> Output
    ) throws(SluiceError) -> Output {
        let start = ContinuousClock.now
        let scope = tracing?.beginStage(self == .parse ? "parse" : "deserialize", at: start)
        var failure: SluiceError?
        defer {
            let end = ContinuousClock.now
            duration = end - start
            if let scope {
                tracing?.endStage(scope, at: end, error: failure)
            }
        }
        do {
            return try work()
        } catch let error as SluiceError where self == .parse {
            failure = error
            throw error
        } catch {
            let wrapped = SluiceError(self == .parse ? .parse : .deserialize, underlyingError: error)
            failure = wrapped
            throw wrapped
        }
    }
}
