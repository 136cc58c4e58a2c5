/// How an ``APIDefinition`` sends its parameters.
///
/// ```swift
/// var encoding: EncodingStrategy {
///     switch self {
///     case .details: .ignore
///     case .search(let query): .queryParameters(parameters: query)
///     case .update(let details): .jsonBody(parameters: details)
///     }
/// }
/// ```
///
/// Query parameters are the members of the value's JSON object, in the order of their keys: nested objects are
/// named with brackets
/// (`user[name]=Ada`), arrays of scalars repeat their key (`tag=a&tag=b`), arrays holding objects are indexed
/// (`items[0][id]=1`), and `null` members are left out. A value that does not encode to a JSON object fails the
/// build stage. Strategies are an open set: construct them with the static members.
public struct EncodingStrategy: Sendable {
    enum Kind: Sendable {
        case ignore
        case query(any JSONRepresentable)
        case body(any JSONRepresentable, JSONEncoder)
    }

    let kind: Kind

    /// No parameters: nothing is added to the URL or the body.
    public static let ignore = EncodingStrategy(kind: .ignore)

    /// Parameters in the URL query.
    ///
    /// - Parameter parameters: A value that encodes to a JSON object.
    /// - Returns: The strategy.
    public static func queryParameters(parameters: any JSONRepresentable) -> EncodingStrategy {
        EncodingStrategy(kind: .query(parameters))
    }

    /// Parameters as a JSON body, `application/json`, encoded by a default `JSONEncoder` writing keys in sorted
    /// order, so that the same parameters always make the same bytes.
    ///
    /// - Parameter parameters: The body.
    /// - Returns: The strategy.
    public static func jsonBody(parameters: any JSONRepresentable) -> EncodingStrategy {
        EncodingStrategy(kind: .body(parameters, RequestBuilder.jsonEncoder()))
    }

    /// Parameters as a JSON body encoded by a `JSONEncoder` of your own (date or key strategies).
    ///
    /// - Parameters:
    ///   - parameters: The body.
    ///   - encoder: The encoder.
    /// - Returns: The strategy.
    public static func jsonBodyUsingCustomEncoder(
        parameters: any JSONRepresentable,
        encoder: JSONEncoder
    ) -> EncodingStrategy {
        EncodingStrategy(kind: .body(parameters, encoder))
    }
}
