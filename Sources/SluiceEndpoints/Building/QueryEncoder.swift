/// Turns an `Encodable` value straight into query or form parameters, without writing JSON text first.
///
/// The rule is the one ``EncodingStrategy`` documents for query parameters:
///
/// - each member of the top-level object is a parameter, in the order of their keys; `nil` members are left out;
/// - strings are used as they are, numbers and booleans as ``PathRepresentable`` writes them;
/// - a nested object's members are named with brackets: `user[name]=Ada`;
/// - an array of scalars is an array parameter, written as the ``QueryEncoding`` says;
/// - an array holding objects or arrays names its elements by index: `items[0][id]=1`.
///
/// A value that is not an object, or holds a number a URL cannot carry (NaN, an infinity), fails with an
/// ``InvalidFieldError`` whose field is the path of the value, such as `parameters.user.tags[1]`.
struct QueryEncoder {
    /// The endpoint's name, for errors.
    var endpoint: String
    /// The field the value is, such as `parameters`; a member's field is appended to it.
    var field: String

    /// The parameters of a value.
    ///
    /// - Parameter value: A value that encodes to an object.
    /// - Returns: The parameters, in the order of their names.
    /// - Throws: ``SluiceError`` with an ``SluiceError/invalidField`` naming the field that could not be encoded.
    func pairs(of value: some Encodable) throws(InvalidFieldError) -> [QueryPair] {
        let root = QueryNode()
        do {
            try root.encode(value, encoder: QueryNodeEncoder(node: root, codingPath: []))
        } catch let error as EncodingError {
            let (path, reason): ([any CodingKey], String) =
                switch error {
                case .invalidValue(_, let context): (context.codingPath, context.debugDescription)
                @unknown default: ([], "\(error)")
                }
            throw InvalidFieldError(endpoint: endpoint, field: field + QueryEncoder.render(path), reason: reason)
        } catch {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: field,
                reason: "the value did not encode: \(error)"
            )
        }
        guard case .object = root.kind else {
            throw InvalidFieldError(
                endpoint: endpoint,
                field: field,
                reason: "query parameters must encode to a JSON object, not \(root.kind.name)"
            )
        }
        var pairs: [QueryPair] = []
        for (key, member) in root.sortedMembers {
            member.flatten(name: key, into: &pairs)
        }
        return pairs
    }

    /// A coding path as a field: `.user.tags[1]`.
    static func render(_ path: [any CodingKey]) -> String {
        path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
    }
}

/// One value being encoded: nothing yet, `nil`, a scalar's text, an object or an array.
///
/// A class, so that a container can keep writing into the node it was made for after handing it out.
final class QueryNode {
    enum Kind {
        case empty
        case null
        case scalar(String)
        case object
        case array

        /// The kind's name for an error, such as `array`.
        var name: String {
            switch self {
            case .empty, .null: "null"
            case .scalar: "scalar"
            case .object: "object"
            case .array: "array"
            }
        }
    }

    var kind = Kind.empty
    var members: [(key: String, node: QueryNode)] = []
    var elements: [QueryNode] = []

    /// The members in the order of their keys, so that the same value always makes the same URL.
    var sortedMembers: [(key: String, node: QueryNode)] {
        members.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
    }

    /// Encodes a value into this node: a scalar as its text, anything else through its `Encodable` conformance.
    func encode(_ value: some Encodable, encoder: QueryNodeEncoder) throws {
        // An optional holding nothing is null, also where its type would write an empty text.
        guard let unwrapped = unwrapOptionals(value) else {
            kind = .null
            return
        }
        if let text = try QueryNode.scalarText(unwrapped, codingPath: encoder.codingPath) {
            kind = .scalar(text)
        } else {
            try value.encode(to: encoder)
        }
    }

    /// The text of a value that is a scalar in a query, or `nil` when the value is not one.
    static func scalarText(_ value: Any, codingPath: [any CodingKey]) throws -> String? {
        switch value {
        case let number as Double:
            guard number.isFinite else {
                throw EncodingError.invalidValue(
                    number,
                    EncodingError.Context(
                        codingPath: codingPath,
                        debugDescription: "\(number) cannot be sent as a parameter; only finite numbers can"
                    )
                )
            }
            return number.pathValue
        case let number as Float:
            return try scalarText(Double(number), codingPath: codingPath)
        case let url as URL:
            return url.absoluteString
        case let representable as any PathRepresentable:
            return representable.pathValue
        default:
            return nil
        }
    }

    /// Appends this node's parameters under a name.
    func flatten(name: String, into pairs: inout [QueryPair]) {
        switch kind {
        case .empty, .null:
            return
        case .scalar(let text):
            pairs.append(QueryPair(name: name, values: [text], isArray: false))
        case .object:
            for (key, member) in sortedMembers {
                member.flatten(name: "\(name)[\(key)]", into: &pairs)
            }
        case .array:
            let scalars = elements.allSatisfy { element in
                switch element.kind {
                case .object, .array: false
                default: true
                }
            }
            guard scalars else {
                for (index, element) in elements.enumerated() {
                    element.flatten(name: "\(name)[\(index)]", into: &pairs)
                }
                return
            }
            let values = elements.compactMap { element -> String? in
                if case .scalar(let text) = element.kind { text } else { nil }
            }
            pairs.append(QueryPair(name: name, values: values, isArray: true))
        }
    }

    /// A new member of this object, which becomes an object if it was nothing yet.
    func member(_ key: String) -> QueryNode {
        kind = .object
        let node = QueryNode()
        members.append((key: key, node: node))
        return node
    }

    /// A new element of this array, which becomes an array if it was nothing yet.
    func element() -> QueryNode {
        kind = .array
        let node = QueryNode()
        elements.append(node)
        return node
    }
}
