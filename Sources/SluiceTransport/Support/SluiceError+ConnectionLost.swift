import Foundation

extension SluiceError {
    /// The error of a connection that ended or failed under an exchange, or under the handshake that opened it.
    ///
    /// - Parameter message: What happened, naming the origin.
    /// - Returns: A transport error whose underlying error is `URLError(.networkConnectionLost)`.
    static func connectionLost(_ message: String) -> SluiceError {
        SluiceError(.transport, message: message, underlyingError: URLError(.networkConnectionLost))
    }
}
