/// A deserializer that hands the body's bytes on unchanged, for requests that decode the bytes themselves.
///
/// Pair it with ``DataParser``.
public struct DataDeserializer: Deserializer {
    /// Creates the deserializer.
    public init() {}

    /// Returns the body.
    ///
    /// - Parameter data: The body.
    /// - Returns: The same bytes.
    public func deserialize(_ data: Data) -> Any { data }
}
