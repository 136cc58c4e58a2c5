import Foundation
import Testing

@testable import Sluice

@Suite struct QueryPairTests {
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
