package import SluiceCore
package import Testing

/// The field a build failure names: records an issue, and throws, unless `body` throws a ``SluiceError`` with code
/// `build` and an ``SluiceError/invalidField``.
///
/// ```swift
/// let field = try requireInvalidField { try DeleteEvent(pathComponents: .init(calendarId: "c", eventId: "")).build() }
/// #expect(field.field == "pathComponents.eventId")
/// ```
///
/// - Parameters:
///   - sourceLocation: Where the expectation is, for the issue.
///   - body: The building code.
/// - Returns: Which field of which endpoint was refused, and why.
/// - Throws: When `body` throws no such error.
package func requireInvalidField<T>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) throws -> SluiceError.InvalidField {
    let error = try #require(throws: SluiceError.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error.code == .build, sourceLocation: sourceLocation)
    return try #require(error.invalidField, sourceLocation: sourceLocation)
}
