extension EmptyResponse: ResponseDefinition {
    /// Nothing: the response has no payload.
    public var result: Void { () }

    /// Creates the empty response, ignoring the body.
    ///
    /// - Parameter json: The body, unused.
    public init(json: Any) {
        self.init()
    }
}
