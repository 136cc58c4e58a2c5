/// The response object of a request whose response has no meaningful body.
///
/// The client does not deserialize the body of a request whose response object is `EmptyResponse` or `Void`, so
/// a 204 with no body and a 200 with an ignored one both succeed. Unlike `Void`, `EmptyResponse` is a type that
/// conforms to protocols (`Decodable`, `Hashable`), for generic code that needs one.
public struct EmptyResponse: Sendable, Hashable, Codable {
    /// Creates an empty response.
    public init() {}

    /// Decodes an empty response from any value, ignoring it.
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
