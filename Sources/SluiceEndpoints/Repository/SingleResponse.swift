/// A response holding one element of `T`, decoded from the whole body.
public struct SingleResponse<T: Decodable>: ResponseDefinition {
    /// The element.
    public let result: T

    /// Decodes the element from the body.
    ///
    /// - Parameter json: The body: a `JSON` document or `JSONSerialization` output.
    /// - Throws: `DecodingError` with the path of the problem.
    public init(json: Any) throws {
        result = try JSON.parse(json).decode(T.self)
    }
}

extension SingleResponse: Sendable where T: Sendable {}
