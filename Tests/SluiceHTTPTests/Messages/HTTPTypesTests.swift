import Foundation
import SluiceCore
import SluiceEndpoints
import Testing

@Suite struct HTTPTypesTests {
    @Test func comparesHeaderNamesCaseInsensitively() {
        #expect(Header("content-type") == .contentType)
        #expect(Header("CONTENT-TYPE").hashValue == Header.contentType.hashValue)
        #expect(Header("X-Custom").name == "X-Custom")
        #expect(Header("X-Custom").isValidToken)
        #expect(!Header("Bad Header").isValidToken)
        #expect(!Header("").isValidToken)
    }

    @Test func looksUpHeadersInOrder() {
        var headers: HTTPHeaders = ["Accept": "application/json", "Set-Cookie": "a=1"]
        headers.add("b=2", for: .setCookie)
        #expect(headers["accept"] == "application/json")
        #expect(headers.values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(headers.dictionary == ["Accept": "application/json", "Set-Cookie": "a=1, b=2"])
        headers[.setCookie] = "c=3"
        #expect(headers.values(for: .setCookie) == ["c=3"])
        headers[.accept] = nil
        #expect(headers["Accept"] == nil)
        #expect(headers.description == "Set-Cookie: c=3")
    }

    @Test func describesStatuses() {
        #expect(HTTPStatus.notFound.description == "404 Not Found")
        #expect(HTTPStatus(code: 299).description == "299 unknown")
        #expect(HTTPStatus(code: 418).description == "418 I'm a Teapot")
        #expect(HTTPStatus(code: 507).description == "507 Insufficient Storage")
        #expect(HTTPStatus(code: 404, reasonPhrase: "").description == "404 Not Found")
        #expect(HTTPStatus(code: 200, reasonPhrase: "Fine") == .ok)
        #expect(HTTPStatus(integerLiteral: 503).kind == .serverError)
        #expect(HTTPStatus(code: 99).kind == .invalid)
        #expect(HTTPStatus.noContent.isSuccessful)
    }

    @Test func spellsMethodsBothWays() {
        #expect(HTTPMethod.GET == .get)
        #expect(HTTPMethod.DELETE.rawValue == "DELETE")
        #expect(HTTPMethod.put.isIdempotent)
        #expect(!HTTPMethod.post.isIdempotent)
        #expect(HTTPMethod("PROPFIND").description == "PROPFIND")
        #expect(HTTPMethod.delete.prefersQueryParameters)
    }

    @Test func formatsMetrics() {
        var metrics = PipelineMetrics()
        metrics.build = .nanoseconds(400)
        metrics.transport = .microseconds(1500)
        metrics.deserialize = .microseconds(30)
        metrics.parse = .seconds(2)
        #expect(metrics.description == "build 400ns, transport 1.50ms, deserialize 30.0µs, parse 2.00s")
    }
}
