extension Duration {
    /// This duration in seconds, as Foundation's `TimeInterval` counts them.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

extension URLRequest {
    /// Sets the request's idle timeout from a definition's, when it names one.
    ///
    /// - Parameters:
    ///   - timeout: The timeout, or `nil` to keep the default.
    ///   - endpoint: The endpoint's name, for the error.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the `timeout` field when the timeout is not a positive duration.
    package mutating func setTimeout(_ timeout: Duration?, endpoint: String) throws(InvalidFieldError) {
        guard let timeout else { return }
        guard timeout > .zero else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: "timeout",
                reason: "the timeout is \(PipelineMetrics.format(timeout)), and must be more than zero"
            )
        }
        timeoutInterval = timeout.seconds
    }
}
