/// How query and form parameters are written, for the cases servers disagree on.
///
/// Names and values are percent-encoded, leaving only the unreserved characters (letters, digits, `-`, `.`, `_`,
/// `~`); in particular a `+` in a value is sent as `%2B`, so that no server reads it as a space.
///
/// ```swift
/// Definition(method: .get, path: "search", parameters: [.query("tag", each: \.tags)],
///            queryEncoding: QueryEncoding(spaces: .plus, arrays: .brackets))
/// // tags ["a b", "c"] -> ?tag%5B%5D=a+b&tag%5B%5D=c, which servers read as tag[]=a b, tag[]=c
/// ```
public struct QueryEncoding: Sendable, Hashable {
    /// How spaces are written in the query.
    public struct Spaces: Sendable, Hashable {
        let asPlus: Bool

        /// `%20`, understood by every server; the default.
        public static let percentEncoded = Spaces(asPlus: false)
        /// `+`, as HTML forms write them.
        public static let plus = Spaces(asPlus: true)
    }

    /// How an array value is written.
    public struct Arrays: Sendable, Hashable {
        enum Style: Sendable, Hashable {
            case repeated
            case brackets
            case commaSeparated
        }

        let style: Style

        /// `tag=a&tag=b`; the default.
        public static let repeatedKey = Arrays(style: .repeated)
        /// `tag[]=a&tag[]=b` (with the brackets percent-encoded), as Rails and PHP read them.
        public static let brackets = Arrays(style: .brackets)
        /// `tag=a,b`, with each element encoded and the commas not.
        public static let commaSeparated = Arrays(style: .commaSeparated)
    }

    /// How spaces are written in the query.
    ///
    /// Form bodies always write them as `+`.
    public var spaces: Spaces
    /// How arrays are written, in the query and in form bodies.
    public var arrays: Arrays

    /// Creates an encoding.
    ///
    /// - Parameters:
    ///   - spaces: How spaces are written in the query; `%20` by default.
    ///   - arrays: How arrays are written; a repeated key by default.
    public init(spaces: Spaces = .percentEncoded, arrays: Arrays = .repeatedKey) {
        self.spaces = spaces
        self.arrays = arrays
    }

    /// `%20` for spaces and a repeated key for arrays.
    public static let `default` = QueryEncoding()

    /// Writes name and value pairs as `name=value&…`.
    func encode(_ pairs: [QueryPair], spaceAsPlus: Bool) -> String {
        var parts: [String] = []
        for pair in pairs {
            let name = PercentEncoding.encode(pair.name, spaceAsPlus: spaceAsPlus)
            let values = pair.values.map { PercentEncoding.encode($0, spaceAsPlus: spaceAsPlus) }
            if pair.isArray, values.isEmpty {
                continue
            }
            guard pair.isArray else {
                parts.append(values.map { "\(name)=\($0)" }.joined(separator: "&"))
                continue
            }
            switch arrays.style {
            case .repeated: parts.append(contentsOf: values.map { "\(name)=\($0)" })
            case .brackets: parts.append(contentsOf: values.map { "\(name)%5B%5D=\($0)" })
            case .commaSeparated: parts.append("\(name)=\(values.joined(separator: ","))")
            }
        }
        return parts.filter { !$0.isEmpty }.joined(separator: "&")
    }
}

/// One query or form parameter before encoding: a name and one value, or the elements of an array.
struct QueryPair: Sendable, Equatable {
    var name: String
    var values: [String]
    var isArray: Bool
}
