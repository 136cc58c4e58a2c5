/// A parser that expects the bytes a ``DataDeserializer`` hands on.
public enum DataParser: Parser, Sendable {
    /// Returns the bytes.
    ///
    /// - Parameter object: What the deserializer produced: `Data`.
    /// - Returns: The bytes.
    /// - Throws: `DecodingError.typeMismatch` when the object is not `Data`.
    public static func parse(_ object: Any) throws -> Data {
        guard let data = object as? Data else {
            throw DecodingError.typeMismatch(
                Data.self,
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "expected the body's bytes from DataDeserializer, found \(type(of: object))"
                )
            )
        }
        return data
    }
}
