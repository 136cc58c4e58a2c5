extension Request {
    /// The build stage as a client runs it: the request's ``build()``, with a failure wrapped as
    /// ``SluiceError/Code/build``.
    package func buildStage() throws(SluiceError) -> URLRequest {
        do {
            return try build()
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
        var metrics: PipelineMetrics?
        return try runResponseStages(body: body, deserializer: deserializer, metrics: &metrics)
    }

    /// The response stages, timed into `metrics` when it is not `nil`, from `stagesStart` when the caller has just
    /// read the clock.
    func runResponseStages(
        body: Data,
        deserializer clientDeserializer: any Deserializer,
        metrics: inout PipelineMetrics?,
        startingAt stagesStart: ContinuousClock.Instant? = nil
    ) throws(SluiceError) -> ResponseObject {
        if let passthrough = passthroughObject(body) {
            return passthrough
        }
        let clock = ContinuousClock()
        let start = metrics == nil ? nil : (stagesStart ?? clock.now)
        var parsed: ContinuousClock.Instant?
        // Timed whether the stages succeed or fail, so that an error reports how long the failing stage ran.
        defer {
            if let start {
                let end = clock.now
                metrics?.deserialize = (parsed ?? end) - start
                metrics?.parse = parsed.map { end - $0 } ?? .zero
            }
        }
        let object: Any
        do {
            object = try (deserializer ?? clientDeserializer).deserialize(body)
        } catch {
            throw SluiceError(.deserialize, underlyingError: error)
        }
        parsed = start == nil ? nil : clock.now
        let value: ResponseObject
        do {
            value = try parse(ResponseParser.parse(object))
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.parse, underlyingError: error)
        }
        return value
    }

    /// The response object of a request that does not deserialize its body: `()` for `Void`, an
    /// ``EmptyResponse``, or the body itself for `Data`.
    private func passthroughObject(_ body: Data) -> ResponseObject? {
        if ResponseObject.self == Void.self {
            return () as? ResponseObject
        }
        if ResponseObject.self == EmptyResponse.self {
            return EmptyResponse() as? ResponseObject
        }
        if ResponseObject.self == Data.self {
            return body as? ResponseObject
        }
        return nil
    }
}
