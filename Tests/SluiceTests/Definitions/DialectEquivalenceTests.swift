import Foundation
import Sluice
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
private struct HandWritten: Request {
    typealias ResponseObject = EmptyResponse
    let make: @Sendable () throws -> URLRequest

    func build() throws -> URLRequest { try make() }
}

/// A request as a user writes it by hand.
private func request(
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
private func json(_ payload: Payload) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try encoder.encode(payload)
}

private func api(_ definition: RowAPI) -> DialectRow.Column {
    .built { try APIDefinitionRequest(definition, expecting: EmptyResponse.self).build() }
}

private let base = "https://api.example.com/v1"
private let jsonType = ["Content-Type": "application/json"]
private let ada = Payload(name: "Ada", age: 36)
private let nested = Payload(name: "Ada", address: .init(city: "London"))
private let tagged = Payload(name: "Ada", tags: ["x", "y"])
private let noForms = "only JSON bodies"
private let scalarsOnly = "parameters are scalars or arrays of scalars"

private let rows: [DialectRow] = [
    DialectRow(
        name: "GET without parameters",
        plain: { try request("GET", "\(base)/users") },
        endpoint: .built { try ShapedEndpoint<PlainGet>().build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users", method: .GET)),
        repository: .built { try RowEndpoint<UsersPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with scalar query parameters",
        plain: { try request("GET", "\(base)/users?page=2&q=swift") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "swift", page: 2)).build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(page: 2, q: "swift")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["q": "swift", "page": 2]).build() }
    ),
    DialectRow(
        name: "GET with an array in the query",
        plain: { try request("GET", "\(base)/users?tags=a&tags=b") },
        endpoint: .built {
            try ShapedEndpoint<ArrayQuery>(parameters: RowValues(tags: ["a", "b"])).build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(tags: ["a", "b"])))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["tags": ["a", "b"]]).build() }
    ),
    DialectRow(
        name: "GET with a nil parameter left out",
        plain: { try request("GET", "\(base)/users?page=3") },
        endpoint: .built { try ShapedEndpoint<ScalarQuery>(parameters: RowValues(page: 3)).build(on: dialectServer) },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(page: 3)))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, query: RowQuery(page: 3)).build() }
    ),
    DialectRow(
        name: "GET with an empty array left out",
        plain: { try request("GET", "\(base)/users") },
        endpoint: .built { try ShapedEndpoint<ArrayQuery>(parameters: RowValues(tags: [])).build(on: dialectServer) },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(tags: [])))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["tags": [String]()]).build() }
    ),
    DialectRow(
        name: "GET with unicode in the query",
        plain: { try request("GET", "\(base)/users?q=caf%C3%A9%20%E2%98%95") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "café ☕")).build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(q: "café ☕")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["q": "café ☕"]).build() }
    ),
    DialectRow(
        name: "GET with +, & and = in the query",
        plain: { try request("GET", "\(base)/users?q=a%2Bb%26c%3Dd") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "a+b&c=d")).build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(q: "a+b&c=d")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, query: RowQuery(q: "a+b&c=d")).build() }
    ),
    DialectRow(
        name: "GET with a path segment holding a slash and a space",
        plain: { try request("GET", "\(base)/files/a%2Fb%20c") },
        endpoint: .built {
            try ShapedEndpoint<SegmentPath>(pathComponents: RowValues(id: "a/b c")).build(on: dialectServer)
        },
        apiDefinition: api(RowAPI(path: EncodedSegmentPath.path, method: .GET)),
        repository: .built { try RowEndpoint<EncodedSegmentPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with a path segment outside ASCII",
        plain: { try request("GET", "\(base)/files/%C3%BCn%C3%AF") },
        endpoint: .built {
            try ShapedEndpoint<SegmentPath>(pathComponents: RowValues(id: "ünï")).build(on: dialectServer)
        },
        apiDefinition: api(RowAPI(path: UnicodeSegmentPath.path, method: .GET)),
        repository: .built { try RowEndpoint<UnicodeSegmentPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with headers",
        plain: { try request("GET", "\(base)/users", headers: ["Accept": "application/json", "X-Trace": "t-1"]) },
        endpoint: .built {
            try ShapedEndpoint<HeadersGet>(headerValues: RowValues(trace: "t-1")).build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(path: "users", method: .GET, headers: ["Accept": "application/json", "X-Trace": "t-1"])
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .get, headers: ["Accept": "application/json", "X-Trace": "t-1"]).build()
        }
    ),
    DialectRow(
        name: "GET with a timeout",
        plain: { try request("GET", "\(base)/users", timeout: 2.5) },
        endpoint: .built { try ShapedEndpoint<TimeoutGet>().build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users", method: .GET, timeout: .milliseconds(2_500))),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, timeout: .milliseconds(2_500)).build() }
    ),
    DialectRow(
        name: "DELETE with a query",
        plain: { try request("DELETE", "\(base)/users/7?force=true") },
        endpoint: .built { try ShapedEndpoint<DeleteWithQuery>().build(on: dialectServer) },
        apiDefinition: api(
            RowAPI(path: "users/7", method: .DELETE, encoding: .queryParameters(parameters: ["force": true] as JSON))
        ),
        repository: .built { try RowEndpoint<UserPath>(method: .delete, parameters: ["force": true]).build() }
    ),
    DialectRow(
        name: "HEAD with a query",
        plain: { try request("HEAD", "\(base)/users?page=1") },
        endpoint: .built { try ShapedEndpoint<HeadWithQuery>(parameters: RowValues(page: 1)).build(on: dialectServer) },
        apiDefinition: api(
            RowAPI(path: "users", method: .HEAD, encoding: .queryParameters(parameters: RowQuery(page: 1)))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .head, parameters: ["page": 1]).build() }
    ),
    DialectRow(
        name: "POST with a JSON body",
        plain: { try request("POST", "\(base)/users", headers: jsonType, body: json(ada)) },
        endpoint: .built { try BodyEndpoint<PostBody>(body: ada).build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users", method: .POST, encoding: .jsonBody(parameters: ada))),
        repository: .built { try RowEndpoint<UsersPath>(method: .post, body: ada).build() }
    ),
    DialectRow(
        name: "POST with a JSON body from untyped repository parameters",
        plain: { try request("POST", "\(base)/users", headers: jsonType, body: json(ada)) },
        endpoint: .built { try BodyEndpoint<PostBody>(body: ada).build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users", method: .POST, encoding: .jsonBody(parameters: ada))),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .post, parameters: ["name": "Ada", "age": 36]).build()
        }
    ),
    DialectRow(
        name: "PUT with a nested JSON body",
        plain: { try request("PUT", "\(base)/users/7", headers: jsonType, body: json(nested)) },
        endpoint: .built { try BodyEndpoint<PutBody>(body: nested).build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users/7", method: .PUT, encoding: .jsonBody(parameters: nested))),
        repository: .built { try RowEndpoint<UserPath>(method: .put, body: nested).build() }
    ),
    DialectRow(
        name: "PATCH with an array in the JSON body",
        plain: { try request("PATCH", "\(base)/users/7", headers: jsonType, body: json(tagged)) },
        endpoint: .built { try BodyEndpoint<PatchBody>(body: tagged).build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users/7", method: .PATCH, encoding: .jsonBody(parameters: tagged))),
        repository: .built { try RowEndpoint<UserPath>(method: .patch, body: tagged).build() }
    ),
    DialectRow(
        name: "POST with a JSON body and a content type of its own",
        plain: {
            try request("POST", "\(base)/users", headers: ["Content-Type": "application/vnd.api+json"], body: json(ada))
        },
        endpoint: .built { try BodyEndpoint<VendorTypeBody>(body: ada).build(on: dialectServer) },
        apiDefinition: api(
            RowAPI(
                path: "users",
                method: .POST,
                encoding: .jsonBody(parameters: ada),
                headers: ["Content-Type": "application/vnd.api+json"]
            )
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .post, body: ada, headers: ["Content-Type": "application/vnd.api+json"])
                .build()
        }
    ),
    DialectRow(
        name: "POST without a body",
        plain: { try request("POST", "\(base)/users") },
        endpoint: .built { try ShapedEndpoint<EmptyPost>().build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "users", method: .POST)),
        repository: .built { try RowEndpoint<UsersPath>(method: .post).build() }
    ),
    DialectRow(
        name: "POST with a form body",
        plain: {
            try request(
                "POST",
                "\(base)/users",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("name=Ada+Lovelace&tags=a%26b".utf8)
            )
        },
        endpoint: .built {
            try ShapedEndpoint<FormPost>(parameters: RowValues(q: "Ada Lovelace", tags: ["a&b"])).build(
                on: dialectServer
            )
        },
        apiDefinition: .inexpressible("an encoding strategy has no form body"),
        repository: .inexpressible(noForms)
    ),
    DialectRow(
        name: "POST with a multipart body",
        plain: {
            let body =
                "--row-boundary\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nAt the beach\r\n"
                + "--row-boundary--\r\n"
            return try request(
                "POST",
                "\(base)/avatar",
                headers: ["Content-Type": "multipart/form-data; boundary=row-boundary"],
                body: Data(body.utf8)
            )
        },
        endpoint: .built {
            try MultipartEndpoint(body: MultipartForm([.field("caption", "At the beach")])).build(on: dialectServer)
        },
        apiDefinition: .inexpressible("an encoding strategy has no multipart body"),
        repository: .inexpressible(noForms)
    ),
    DialectRow(
        name: "GET on a path with a leading slash",
        plain: { try request("GET", "\(base)/users") },
        endpoint: .built { try ShapedEndpoint<SlashPath>().build(on: dialectServer) },
        apiDefinition: api(RowAPI(path: "/users", method: .GET)),
        repository: .built { try RowEndpoint<SlashUsersPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with query, headers and a timeout",
        plain: { try request("GET", "\(base)/users?page=2&q=a%20b&tags=x", headers: ["X-Trace": "t-2"], timeout: 30) },
        endpoint: .built {
            try ShapedEndpoint<Everything>(
                parameters: RowValues(q: "a b", page: 2, tags: ["x"]),
                headerValues: RowValues(trace: "t-2")
            )
            .build(on: dialectServer)
        },
        apiDefinition: api(
            RowAPI(
                path: "users",
                method: .GET,
                encoding: .queryParameters(parameters: RowQuery(page: 2, q: "a b", tags: ["x"])),
                headers: ["X-Trace": "t-2"],
                timeout: .seconds(30)
            )
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(
                method: .get,
                query: RowQuery(page: 2, q: "a b", tags: ["x"]),
                headers: ["X-Trace": "t-2"],
                timeout: .seconds(30)
            )
            .build()
        }
    ),
    DialectRow(
        name: "GET with a nested object in the query",
        plain: { try request("GET", "\(base)/users?filter%5Bstatus%5D=active") },
        endpoint: .inexpressible(scalarsOnly),
        apiDefinition: api(
            RowAPI(
                path: "users",
                method: .GET,
                encoding: .queryParameters(parameters: RowQuery(filter: .init(status: "active")))
            )
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .get, parameters: ["filter": ["status": "active"]]).build()
        }
    ),
    DialectRow(
        name: "GET with an array of objects in the query",
        plain: { try request("GET", "\(base)/users?items%5B0%5D%5Bid%5D=1&items%5B1%5D%5Bid%5D=2") },
        endpoint: .inexpressible(scalarsOnly),
        apiDefinition: api(
            RowAPI(
                path: "users",
                method: .GET,
                encoding: .queryParameters(parameters: RowQuery(items: [.init(id: 1), .init(id: 2)]))
            )
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .get, query: RowQuery(items: [.init(id: 1), .init(id: 2)])).build()
        }
    ),
]

@Suite struct DialectEquivalenceTests {
    @Test func theTableCoversTwentyShapes() {
        #expect(rows.count >= 20)
    }

    @Test(arguments: rows)
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
