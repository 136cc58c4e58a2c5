import Foundation
import HTTPTypes
import SluiceCore
import SluiceOpenAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests cross between swift-http-types and `URLRequest` with their URL joined as swift-openapi-runtime's transports
/// join it, and refused as a Sluice client refuses them.
@Suite struct URLRequestBridgingTests {
    /// The base URL, the request's path, and the URL they make, as the URLSession and async-http-client transports
    /// make it: the path appended to the base URL's, percent-encoding kept; the query the request's alone.
    static let joins: [(base: String, path: String, url: String)] = [
        ("http://127.0.0.1:8080/v1", "/items/42?fields=name", "http://127.0.0.1:8080/v1/items/42?fields=name"),
        ("https://api.example.com", "/items", "https://api.example.com/items"),
        ("https://api.example.com/v1/", "/items", "https://api.example.com/v1//items"),
        ("https://api.example.com/v1?key=1", "/items?tag=a%20b", "https://api.example.com/v1/items?tag=a%20b"),
        ("https://api.example.com/v1?key=1", "/items", "https://api.example.com/v1/items"),
        ("https://api.example.com/v1", "/items/a%2Fb%3Fc", "https://api.example.com/v1/items/a%2Fb%3Fc"),
    ]

    @Test(arguments: joins)
    func joinsTheBaseURLAsTheRuntimeDoes(_ join: (base: String, path: String, url: String)) throws {
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: join.path)
        let base = try #require(URL(string: join.base))
        let request = try URLRequest(head, baseURL: base)
        #expect(request.url?.absoluteString == join.url)
    }

    @Test func keepsTheMethodAndJoinsRepeatedFieldsInOrder() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "application/json"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let head = HTTPRequest(
            method: .patch,
            scheme: "https",
            authority: "api.example.com:8443",
            path: "/items/1",
            headerFields: fields
        )
        let request = try URLRequest(head)
        #expect(request.url?.absoluteString == "https://api.example.com:8443/items/1")
        #expect(request.httpMethod == "PATCH")
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json, text/plain")
        #expect(request.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
    }

    @Test func convertsAURLRequestToAHead() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com:8443/items?tag=a%20b")))
        request.httpMethod = "DELETE"
        request.setValue("7", forHTTPHeaderField: "X-Trace")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let head = try HTTPRequest(request)
        #expect(head.method == .delete)
        #expect(head.scheme == "https")
        #expect(head.authority == "api.example.com:8443")
        #expect(head.path == "/items?tag=a%20b")
        #expect(head.headerFields.map(\.description) == ["Accept: application/json", "X-Trace: 7"])
        let root = try HTTPRequest(URLRequest(url: try #require(URL(string: "http://[::1]:8080"))))
        #expect(root.authority == "[::1]:8080")
        #expect(root.path == "/")
    }

    /// What a Sluice client refuses in a request it built, the bridge refuses with the same error.
    @Test func refusesWhatAClientRefusesWithTheSameError() throws {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/items")))
        request.httpMethod = "GET"
        request.allHTTPHeaderFields = ["X-Note": "a\u{2028}b"]
        let clientError = #expect(throws: SluiceError.self) { try request.validate(as: "URLRequest") }
        let bridgeError = #expect(throws: SluiceError.self) { try HTTPRequest(request) }
        #expect(bridgeError?.code == .build)
        #expect(bridgeError?.invalidField == clientError?.invalidField)
        #expect(
            bridgeError?.invalidField?.description
                == "URLRequest.headers.X-Note: the value contains the separator U+2028, which would break the header"
        )

        var head = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/items")
        head.headerFields[.contentLength] = "12"
        let length = #expect(throws: SluiceError.self) { try URLRequest(head) }
        #expect(
            length?.invalidField?.description
                == "HTTPRequest.headers.Content-Length: the value 12 declares a body, but the request has none"
        )
        head.headerFields[.contentLength] = nil
        head.headerFields[.transferEncoding] = "chunked"
        let framing = #expect(throws: SluiceError.self) { try URLRequest(head) }
        #expect(
            framing?.invalidField?.description
                == "HTTPRequest.headers.Transfer-Encoding: the transport frames the body and sets Transfer-Encoding itself; leave it out"
        )
    }

    @Test func namesAPathOrOriginItCannotJoin() throws {
        let base = try #require(URL(string: "https://api.example.com/v1"))
        let elsewhere = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "//evil.example/items")
        let path = #expect(throws: SluiceError.self) { try URLRequest(elsewhere, baseURL: base) }
        #expect(
            path?.invalidField?.description
                == #"HTTPRequest.path: "//evil.example/items" is not a path and query: it names a scheme or a host of its own"#
        )
        let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items")
        let origin = #expect(throws: SluiceError.self) { try URLRequest(relative) }
        #expect(
            origin?.invalidField?.description
                == "HTTPRequest.authority: the request names no scheme and authority to send it to, and no base URL is given"
        )
        let file = try #require(URL(string: "file:///tmp"))
        let hostless = #expect(throws: SluiceError.self) { try URLRequest(relative, baseURL: file) }
        #expect(
            hostless?.invalidField?.description == "HTTPRequest.baseURL: file:///tmp has no host to send the request to"
        )
    }
}
