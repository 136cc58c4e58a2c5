/// A response holding an array of `T`, decoded from the whole body.
public struct ArrayResponse<T: Decodable>: ResponseDefinition {
    /// The elements.
    public let result: [T]

    /// Decodes the elements from the body, which must be an array.
    ///
    /// - Parameter json: The body: a `JSON` document or `JSONSerialization` output.
    /// - Throws: `DecodingError` with the path of the problem.
    public init(json: Any) throws {
        result = try JSON.parse(json).decode([T].self)
    }
}

extension ArrayResponse: Sendable where T: Sendable {}
