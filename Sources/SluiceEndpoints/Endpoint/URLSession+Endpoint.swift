extension URLSession {
    /// Performs an endpoint with this session, without a client object.
    ///
    /// The endpoint runs through the same pipeline as with ``APIClient``: its response type decides what happens to
    /// the body (`Void` ignores it, `Data` returns it, a `Decodable` type is decoded with the endpoint's
    /// `responseDecoder`), and a non-2xx status fails with its decoded error response.
    ///
    /// ```swift
    /// try await URLSession.shared.perform(DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "e")))
    /// ```
    ///
    /// - Parameter endpoint: The endpoint to perform.
    /// - Returns: The endpoint's response.
    /// - Throws: ``SluiceError`` naming the stage that failed.
    public func perform<E: Endpoint>(_ endpoint: E) async throws(SluiceError) -> E.Response {
        try await APIClient(requestPerformer: NetworkRequestPerformer(session: self)).perform(endpoint)
    }
}
