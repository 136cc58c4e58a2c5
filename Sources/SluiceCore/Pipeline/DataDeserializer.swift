/// The pass-through stage: a deserializer that hands the body's bytes on unchanged, for requests that decode the bytes
/// themselves.
///
/// Its parser is `Data` itself, as `JSON` is the parser of what `JSONDeserializer` produces: a request that names
/// both receives the body's bytes in its ``Request/parse(_:)``, in the parse stage, which then measures, and reports
/// the errors of, all of the decoding.
///
/// ```swift
/// struct Log: Request {
///     typealias ResponseObject = [Substring]
///     typealias ResponseParser = Data
///
///     var deserializer: (any Deserializer)? { DataDeserializer() }
///
///     func build() throws -> URLRequest { URLRequest(url: URL(string: "https://example.com/log")!) }
///
///     func parse(_ data: Data) -> [Substring] { String(decoding: data, as: UTF8.self).split(separator: "\n") }
/// }
/// ```
public struct DataDeserializer: Deserializer {
    /// Creates the deserializer.
    public init() {}

    /// Returns the body.
    ///
    /// - Parameter data: The body.
    /// - Returns: The same bytes.
    public func deserialize(_ data: Data) -> Any { data }
}

extension Data: Parser {
    /// Returns the bytes a ``DataDeserializer`` handed on.
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
