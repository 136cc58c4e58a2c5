/// A decoder of `Decodable` values from bytes: `JSONDocumentDecoder`, Foundation's `JSONDecoder` and
/// `PropertyListDecoder`, or a decoder of your own for another format.
///
/// A decoder for an API that puts `)]}'` before its JSON against cross-site script inclusion:
///
/// ```swift
/// struct GuardedJSONDecoder: DataDecoder {
///     func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
///         let prefix = Data(")]}'\n".utf8)
///         let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
///         return try JSONDocumentDecoder().decode(type, from: Data(body))
///     }
/// }
/// ```
public protocol DataDecoder {
    /// Decodes a value from bytes.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes.
    /// - Returns: The decoded value.
    /// - Throws: An error saying what was wrong with the bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}
