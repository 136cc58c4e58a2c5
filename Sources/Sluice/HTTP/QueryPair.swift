/// One query or form parameter before encoding: a name and one value, or the elements of an array.
struct QueryPair: Sendable, Equatable {
    var name: String
    var values: [String]
    var isArray: Bool
}
