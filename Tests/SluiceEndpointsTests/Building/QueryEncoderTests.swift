import ClientFixtures
import Foundation
import Testing

@testable import SluiceEndpoints

@Suite struct QueryEncoderTests {
    @Test(arguments: [
        (
            #"{"items": [{"id": 1}, {"id": 2, "tags": ["a", "b"]}]}"#,
            ["items[0][id]=1", "items[1][id]=2", "items[1][tags][]=a,b"],
            "items%5B0%5D%5Bid%5D=1&items%5B1%5D%5Bid%5D=2&items%5B1%5D%5Btags%5D=a&items%5B1%5D%5Btags%5D=b"
        ),
        (
            #"{"mixed": [1, {"skip": null, "on": true}, "x y"]}"#,
            ["mixed[0]=1", "mixed[1][on]=true", "mixed[2]=x y"],
            "mixed%5B0%5D=1&mixed%5B1%5D%5Bon%5D=true&mixed%5B2%5D=x%20y"
        ),
        (
            #"{"grid": [[1, 2], [], [3]]}"#,
            ["grid[0][]=1,2", "grid[1][]=", "grid[2][]=3"],
            "grid%5B0%5D=1&grid%5B0%5D=2&grid%5B2%5D=3"
        ),
    ])
    func namesTheElementsOfAnArrayHoldingObjectsOrArraysByIndex(
        _ json: String,
        _ pairs: [String],
        _ query: String
    ) throws {
        let flattened = try QueryEncoder(endpoint: "Test", field: "parameters").pairs(of: JSON(parsing: json))
        let described = flattened.map { pair in
            pair.isArray ? "\(pair.name)[]=\(pair.values.joined(separator: ","))" : "\(pair.name)=\(pair.values[0])"
        }
        #expect(described == pairs)
        #expect(QueryEncoding.default.encode(flattened, spaceAsPlus: false) == query)
    }
}

/// A value encoded straight into parameters, with every kind of member.
private struct Filters: Encodable {
    struct Range: Encodable {
        var from: Int
        var to: Int?
    }

    struct Tag: Encodable {
        var name: String
    }

    var zeta: Bool
    var alpha: String?
    var range: Range
    var tags: [Tag]
    var ratio: Double
    var home: URL
    var ids: [Int?]
}

@Suite struct QueryEncoderDirectTests {
    private let encoder = QueryEncoder(endpoint: "Search", field: "parameters")

    @Test func encodesAValueByTheSameRuleAsItsJSON() throws {
        let filters = Filters(
            zeta: true,
            alpha: nil,
            range: .init(from: 1, to: nil),
            tags: [.init(name: "a b")],
            ratio: 0.5,
            home: URL(staticString: "https://example.com/x?y=1"),
            ids: [1, nil, 3]
        )
        let query = QueryEncoding.default.encode(try encoder.pairs(of: filters), spaceAsPlus: false)
        #expect(
            query
                == "home=https%3A%2F%2Fexample.com%2Fx%3Fy%3D1&ids=1&ids=3&range%5Bfrom%5D=1&ratio=0.5"
                + "&tags%5B0%5D%5Bname%5D=a%20b&zeta=true"
        )
    }

    @Test(arguments: [
        ("[1, 2]" as String, "array"),
        ("\"text\"", "scalar"),
        ("null", "null"),
    ])
    func rejectsAValueThatIsNotAnObject(_ json: String, _ kind: String) throws {
        let error = try #require(throws: InvalidFieldError.self) { try encoder.pairs(of: JSON(parsing: json)) }
        #expect(
            String(describing: error) == "Search.parameters: query parameters must encode to a JSON object, not \(kind)"
        )
    }

    @Test func namesTheFieldOfANumberAURLCannotCarry() throws {
        let value: [String: [String: [Double]]] = ["user": ["scores": [1, .infinity]]]
        let error = try #require(throws: InvalidFieldError.self) { try encoder.pairs(of: value) }
        #expect(error.field == "parameters.user.scores[1]")
        #expect(
            String(describing: error)
                == "Search.parameters.user.scores[1]: inf cannot be sent as a parameter; only finite numbers can"
        )
    }
}
