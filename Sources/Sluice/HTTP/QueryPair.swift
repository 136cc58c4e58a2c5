/// One query or form parameter before encoding: a name and one value, or the elements of an array.
struct QueryPair: Sendable, Equatable {
    var name: String
    var values: [String]
    var isArray: Bool

    /// The parameters of a JSON object, by the rule the enum-based and repository dialects share.
    ///
    /// The rule:
    ///
    /// - each member is a parameter; `null` members are left out;
    /// - strings are used as they are, numbers as written, booleans as `true` and `false`;
    /// - a nested object's members are named with brackets: `{"user": {"name": "Ada"}}` is `user[name]=Ada`;
    /// - an array of scalars is an array parameter, written as the ``QueryEncoding`` says;
    /// - an array holding objects or arrays names its elements by index: `items[0][id]=1`.
    ///
    /// Returns `nil` when the value is not an object.
    static func flattening(_ json: JSON) -> [QueryPair]? {
        guard let members = json.members else { return nil }
        var pairs: [QueryPair] = []
        for (key, value) in members {
            flatten(value, name: key, into: &pairs)
        }
        return pairs
    }

    private static func flatten(_ json: JSON, name: String, into pairs: inout [QueryPair]) {
        switch json.value {
        case .null:
            return
        case .bool(let flag):
            pairs.append(QueryPair(name: name, values: [flag ? "true" : "false"], isArray: false))
        case .number(let number):
            pairs.append(QueryPair(name: name, values: [number.text], isArray: false))
        case .string(let text):
            pairs.append(QueryPair(name: name, values: [text], isArray: false))
        case .object(let members):
            for (key, value) in members {
                flatten(value, name: "\(name)[\(key)]", into: &pairs)
            }
        case .array(let elements):
            let scalars = elements.allSatisfy { $0.kind != .array && $0.kind != .object }
            if scalars {
                let values = elements.compactMap { element -> String? in
                    switch element.value {
                    case .bool(let flag): flag ? "true" : "false"
                    case .number(let number): number.text
                    case .string(let text): text
                    default: nil
                    }
                }
                pairs.append(QueryPair(name: name, values: values, isArray: true))
            } else {
                for (index, element) in elements.enumerated() {
                    flatten(element, name: "\(name)[\(index)]", into: &pairs)
                }
            }
        }
    }
}
