import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

/// One endpoint shape, described in each dialect: the plain pipeline `Request` with a hand-written `build()` is the
/// expected request, and every other dialect that can express the shape must build the same bytes.
struct DialectRow: Sendable, CustomTestStringConvertible {
    /// How one dialect describes the row: the request it builds, or why it cannot express the shape.
    enum Column: Sendable {
        case built(@Sendable () throws -> URLRequest)
        case inexpressible(String)
    }

    let name: String
    let plain: @Sendable () throws -> URLRequest
    let endpoint: Column
    let apiDefinition: Column
    let repository: Column

    var testDescription: String { name }
}

/// What a request is on the wire, to compare: URL, method, every header, body bytes and timeout.
struct WireRequest: Equatable, CustomStringConvertible {
    let url: String?
    let method: String?
    let headers: [String: String]
    let body: Data?
    let timeout: TimeInterval

    init(_ request: URLRequest) {
        url = request.url?.absoluteString
        method = request.httpMethod
        headers = request.allHTTPHeaderFields ?? [:]
        body = request.httpBody
        timeout = request.timeoutInterval
    }

    var description: String {
        let text = body.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
        return "\(method ?? "?") \(url ?? "?") \(headers.sorted { $0.key < $1.key }) body \(text) timeout \(timeout)"
    }
}

/// The plain pipeline dialect: a request whose `build()` is written by hand.
struct HandWritten: Request {
    typealias ResponseObject = EmptyResponse
    let make: @Sendable () throws -> URLRequest

    func build() throws -> URLRequest { try make() }
}

/// What the rows of the dialect table share.
enum Row {
    static let base = "https://api.example.com/v1"
    static let jsonType = ["Content-Type": "application/json"]
    static let ada = Payload(name: "Ada", age: 36)
    static let nested = Payload(name: "Ada", address: .init(city: "London"))
    static let tagged = Payload(name: "Ada", tags: ["x", "y"])
    static let noForms = "only JSON bodies"
    static let scalarsOnly = "parameters are scalars or arrays of scalars"

    /// A request as a user writes it by hand.
    static func request(
        _ method: String,
        _ url: String,
        headers: [String: String] = [:],
        body: Data? = nil,
        timeout: TimeInterval? = nil
    ) throws -> URLRequest {
        var request = URLRequest(url: try testURL(url))
        request.httpMethod = method
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body
        if let timeout {
            request.timeoutInterval = timeout
        }
        return request
    }

    /// A JSON body as `JSONEncoder` writes it with sorted keys, as every dialect does by default.
    static func json(_ payload: Payload) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(payload)
    }

    /// The enum-based dialect's column for a definition.
    static func api(_ definition: RowAPI) -> DialectRow.Column {
        .built { try APIDefinitionRequest(definition, expecting: EmptyResponse.self).build() }
    }
}

@Suite struct DialectEquivalenceTests {
    @Test func theTableCoversTwentyShapes() {
        #expect((urlRows + bodyRows).count >= 20)
    }

    @Test(arguments: urlRows + bodyRows)
    func everyDialectBuildsTheSameRequest(_ row: DialectRow) throws {
        let expected = WireRequest(try HandWritten(make: row.plain).build())
        for (dialect, column) in [
            ("Endpoint", row.endpoint), ("APIDefinition", row.apiDefinition), ("Repository", row.repository),
        ] {
            switch column {
            case .built(let build):
                let built = WireRequest(try build())
                #expect(built == expected, "\(dialect) built \(built)")
            case .inexpressible(let reason):
                #expect(!reason.isEmpty, "\(dialect) skips this row")
            }
        }
    }
}
