extension Request {
    /// The build stage as a client runs it: the request's ``build()``, then the checks every request passes before
    /// a performer sees it (`URLRequest.validateForSending(as:)`), with a failure wrapped as
    /// ``SluiceError/Code/build``.
    package func buildStage() throws(SluiceError) -> URLRequest {
        do {
            let request = try build()
            try request.validateForSending(as: String(describing: Self.self))
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
        var metrics = PipelineMetrics()
        return try responseStages(body: body, deserializer: deserializer, metrics: &metrics)
    }

    /// The response stages on a successful response's body, in order: deserialize (with the request's own
    /// deserializer, or `clientDeserializer`), parse with ``Request/ResponseParser``, then ``Request/parse(_:)``.
    ///
    /// Each stage's time goes into `metrics`, whether it succeeds or fails, so that an error reports how long the
    /// failing stage ran. `afterDeserializing` runs between the deserialize and parse stages, for a client to fail
    /// the request there (at a passed deadline).
    func responseStages(
        body: Data,
        deserializer clientDeserializer: any Deserializer,
        metrics: inout PipelineMetrics,
        afterDeserializing: () throws(SluiceError) -> Void = {}
    ) throws(SluiceError) -> ResponseObject {
        if let passedThrough = responseObject(passingThrough: body) {
            return passedThrough
        }
        let clock = ContinuousClock()
        let start = clock.now
        let object: Any
        do {
            object = try (deserializer ?? clientDeserializer).deserialize(body)
        } catch {
            metrics.deserialize = clock.now - start
            throw SluiceError(.deserialize, underlyingError: error)
        }
        let parseStart = clock.now
        metrics.deserialize = parseStart - start
        try afterDeserializing()
        defer { metrics.parse = clock.now - parseStart }
        do {
            return try parse(ResponseParser.parse(object))
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.parse, underlyingError: error)
        }
    }
}
