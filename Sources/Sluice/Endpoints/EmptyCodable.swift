/// The default `Body` and `ErrorResponse` of an ``Endpoint``: no body to send, no error body to decode.
///
/// Decoding it succeeds on any input; encoding it produces an empty object. An endpoint whose `Body` is
/// `EmptyCodable` sends no body at all.
public struct EmptyCodable: Codable, Hashable, Sendable {
    /// Creates the empty value.
    public init() {}

    /// Decodes the empty value from any input, ignoring it.
    ///
    /// - Parameter decoder: The decoder, unused.
    public init(from decoder: any Decoder) {}

    /// Encodes an empty object, `{}`.
    ///
    /// - Parameter encoder: The encoder.
    public func encode(to encoder: any Encoder) {
        _ = encoder.container(keyedBy: JSONPathKey.self)
    }
}
