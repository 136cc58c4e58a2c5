import Foundation
import SluiceEndpoints

/// The rows of the dialect table that differ in the URL, the method, the headers or the timeout.
let urlRows: [DialectRow] = [
    DialectRow(
        name: "GET without parameters",
        plain: { try Row.request("GET", "\(Row.base)/users") },
        endpoint: .built { try ShapedEndpoint<PlainGet>().build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users", method: .GET)),
        repository: .built { try RowEndpoint<UsersPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with scalar query parameters",
        plain: { try Row.request("GET", "\(Row.base)/users?page=2&q=swift") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "swift", page: 2)).build(on: dialectServer)
        },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(page: 2, q: "swift")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["q": "swift", "page": 2]).build() }
    ),
    DialectRow(
        name: "GET with an array in the query",
        plain: { try Row.request("GET", "\(Row.base)/users?tags=a&tags=b") },
        endpoint: .built {
            try ShapedEndpoint<ArrayQuery>(parameters: RowValues(tags: ["a", "b"])).build(on: dialectServer)
        },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(tags: ["a", "b"])))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["tags": ["a", "b"]]).build() }
    ),
    DialectRow(
        name: "GET with a nil parameter left out",
        plain: { try Row.request("GET", "\(Row.base)/users?page=3") },
        endpoint: .built { try ShapedEndpoint<ScalarQuery>(parameters: RowValues(page: 3)).build(on: dialectServer) },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(page: 3)))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, query: RowQuery(page: 3)).build() }
    ),
    DialectRow(
        name: "GET with an empty array left out",
        plain: { try Row.request("GET", "\(Row.base)/users") },
        endpoint: .built { try ShapedEndpoint<ArrayQuery>(parameters: RowValues(tags: [])).build(on: dialectServer) },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(tags: [])))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["tags": [String]()]).build() }
    ),
    DialectRow(
        name: "GET with unicode in the query",
        plain: { try Row.request("GET", "\(Row.base)/users?q=caf%C3%A9%20%E2%98%95") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "café ☕")).build(on: dialectServer)
        },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(q: "café ☕")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, parameters: ["q": "café ☕"]).build() }
    ),
    DialectRow(
        name: "GET with +, & and = in the query",
        plain: { try Row.request("GET", "\(Row.base)/users?q=a%2Bb%26c%3Dd") },
        endpoint: .built {
            try ShapedEndpoint<ScalarQuery>(parameters: RowValues(q: "a+b&c=d")).build(on: dialectServer)
        },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, encoding: .queryParameters(parameters: RowQuery(q: "a+b&c=d")))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, query: RowQuery(q: "a+b&c=d")).build() }
    ),
    DialectRow(
        name: "GET with a path segment holding a slash and a space",
        plain: { try Row.request("GET", "\(Row.base)/files/a%2Fb%20c") },
        endpoint: .built {
            try ShapedEndpoint<SegmentPath>(pathComponents: RowValues(id: "a/b c")).build(on: dialectServer)
        },
        apiDefinition: Row.api(RowAPI(path: EncodedSegmentPath.path, method: .GET)),
        repository: .built { try RowEndpoint<EncodedSegmentPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with a path segment outside ASCII",
        plain: { try Row.request("GET", "\(Row.base)/files/%C3%BCn%C3%AF") },
        endpoint: .built {
            try ShapedEndpoint<SegmentPath>(pathComponents: RowValues(id: "ünï")).build(on: dialectServer)
        },
        apiDefinition: Row.api(RowAPI(path: UnicodeSegmentPath.path, method: .GET)),
        repository: .built { try RowEndpoint<UnicodeSegmentPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with headers",
        plain: {
            try Row.request("GET", "\(Row.base)/users", headers: ["Accept": "application/json", "X-Trace": "t-1"])
        },
        endpoint: .built {
            try ShapedEndpoint<HeadersGet>(headerValues: RowValues(trace: "t-1")).build(on: dialectServer)
        },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .GET, headers: ["Accept": "application/json", "X-Trace": "t-1"])
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .get, headers: ["Accept": "application/json", "X-Trace": "t-1"]).build()
        }
    ),
    DialectRow(
        name: "GET with a timeout",
        plain: { try Row.request("GET", "\(Row.base)/users", timeout: 2.5) },
        endpoint: .built { try ShapedEndpoint<TimeoutGet>().build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users", method: .GET, timeout: .milliseconds(2_500))),
        repository: .built { try RowEndpoint<UsersPath>(method: .get, timeout: .milliseconds(2_500)).build() }
    ),
    DialectRow(
        name: "DELETE with a query",
        plain: { try Row.request("DELETE", "\(Row.base)/users/7?force=true") },
        endpoint: .built { try ShapedEndpoint<DeleteWithQuery>().build(on: dialectServer) },
        apiDefinition: Row.api(
            RowAPI(path: "users/7", method: .DELETE, encoding: .queryParameters(parameters: ["force": true] as JSON))
        ),
        repository: .built { try RowEndpoint<UserPath>(method: .delete, parameters: ["force": true]).build() }
    ),
    DialectRow(
        name: "HEAD with a query",
        plain: { try Row.request("HEAD", "\(Row.base)/users?page=1") },
        endpoint: .built { try ShapedEndpoint<HeadWithQuery>(parameters: RowValues(page: 1)).build(on: dialectServer) },
        apiDefinition: Row.api(
            RowAPI(path: "users", method: .HEAD, encoding: .queryParameters(parameters: RowQuery(page: 1)))
        ),
        repository: .built { try RowEndpoint<UsersPath>(method: .head, parameters: ["page": 1]).build() }
    ),
    DialectRow(
        name: "GET on a path with a leading slash",
        plain: { try Row.request("GET", "\(Row.base)/users") },
        endpoint: .built { try ShapedEndpoint<SlashPath>().build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "/users", method: .GET)),
        repository: .built { try RowEndpoint<SlashUsersPath>(method: .get).build() }
    ),
    DialectRow(
        name: "GET with query, headers and a timeout",
        plain: {
            try Row.request("GET", "\(Row.base)/users?page=2&q=a%20b&tags=x", headers: ["X-Trace": "t-2"], timeout: 30)
        },
        endpoint: .built {
            try ShapedEndpoint<Everything>(
                parameters: RowValues(q: "a b", page: 2, tags: ["x"]),
                headerValues: RowValues(trace: "t-2")
            )
            .build(on: dialectServer)
        },
        apiDefinition: Row.api(
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
        name: "GET with a Row.nested object in the query",
        plain: { try Row.request("GET", "\(Row.base)/users?filter%5Bstatus%5D=active") },
        endpoint: .inexpressible(Row.scalarsOnly),
        apiDefinition: Row.api(
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
        plain: { try Row.request("GET", "\(Row.base)/users?items%5B0%5D%5Bid%5D=1&items%5B1%5D%5Bid%5D=2") },
        endpoint: .inexpressible(Row.scalarsOnly),
        apiDefinition: Row.api(
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
