/// The path of an ``Endpoint``: literal text with typed values interpolated from the endpoint's
/// `PathComponents`, checked by the compiler.
///
/// ```swift
/// let path: EndpointPath<EventPath> = "calendars/\(path: \.calendarId)/events/\(path: \.eventId)"
/// ```
///
/// Each value is percent-encoded as one path segment: every character but the unreserved ones (letters, digits,
/// `-`, `.`, `_` and `~`) is encoded, so a `/` or a space in a value stays inside its segment. A value that
/// would change the path's shape (empty, `.` or `..`, or an optional that is `nil`) fails the build stage.
public struct EndpointPath<Components>: Sendable {
    enum Piece: Sendable {
        case literal(String)
        case value(any PartialKeyPath<Components> & Sendable)
    }

    let pieces: [Piece]

    /// The path with each interpolated value shown as `{name}`, such as `calendars/{calendarId}/events`.
    public var template: String {
        pieces.map { piece in
            switch piece {
            case .literal(let text): text
            case .value(let keyPath): "{\(EndpointPath.name(of: keyPath))}"
            }
        }
        .joined()
    }

    /// The last component of a key path's description: `calendarId` for `\PathComponents.calendarId`.
    static func name(of keyPath: AnyKeyPath) -> String {
        let description = String(describing: keyPath)
        return description.split(separator: ".").last.map(String.init) ?? description
    }

    /// The path with the components' values, percent-encoded.
    func render(_ components: Components, endpoint: String) throws(InvalidFieldError) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .literal(let text):
                result += text
            case .value(let keyPath):
                let field = "pathComponents.\(EndpointPath.name(of: keyPath))"
                guard let text = try pathText(of: components[keyPath: keyPath], endpoint: endpoint, field: field)
                else {
                    throw InvalidFieldError(endpoint: endpoint, field: field, reason: "the path value is nil")
                }
                result += try RequestBuilder.pathSegment(text, endpoint: endpoint, field: field)
            }
        }
        return result
    }
}

extension EndpointPath: ExpressibleByStringInterpolation {
    /// Builds a path from literal text and typed values.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var pieces: [Piece] = []

        /// Creates an empty interpolation.
        ///
        /// - Parameters:
        ///   - literalCapacity: The length of the literal text, unused.
        ///   - interpolationCount: The number of interpolations, unused.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Appends literal path text, used as written.
        ///
        /// - Parameter literal: The text.
        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty {
                pieces.append(.literal(literal))
            }
        }

        /// Appends the value of one of the endpoint's path components, percent-encoded as a segment.
        ///
        /// - Parameter path: The key path of the component.
        public mutating func appendInterpolation<Value: PathRepresentable>(
            path: any KeyPath<Components, Value> & Sendable
        ) {
            pieces.append(.value(path))
        }
    }

    /// Creates a path from literal text.
    ///
    /// - Parameter value: The path.
    public init(stringLiteral value: String) {
        pieces = value.isEmpty ? [] : [.literal(value)]
    }

    /// Creates a path from an interpolation.
    ///
    /// - Parameter stringInterpolation: The literal text and values.
    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }
}

extension EndpointPath: CustomStringConvertible {
    /// The ``template``.
    public var description: String { template }
}
