import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

@Suite struct APIClientTests {
    @Test func performsADecodableRequest() async throws {
        let stub = StubPerformer.json(#"[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]"#)
        let users = try await APIClient(requestPerformer: stub).perform(ListUsers())
        #expect(users == [User(id: 1, name: "Ada"), User(id: 2, name: "Grace")])
        #expect(stub.requests.map { $0.url?.absoluteString } == ["https://api.example.com/users"])
    }

    @Test func returnsTheExchangeWithStageTimes() async throws {
        let stub = StubPerformer.json(#"{"id": 1, "name": "Ada"}"#)
        let response = try await APIClient(requestPerformer: stub).response(for: GetUser(id: 1))
        #expect(response.value == User(id: 1, name: "Ada"))
        #expect(response.http.status == .ok)
        #expect(response.http.headers[.contentType] == "application/json")
        #expect(response.request.url?.path == "/users/1")
        #expect(response.metrics.responseBodyBytes == 24)
        #expect(response.metrics.deserialize > .zero)
        #expect(response.metrics.parse > .zero)
    }

    @Test func ignoresTheBodyForVoidAndEmptyResponse() async throws {
        let stub = StubPerformer(always: HTTPResponse(status: .noContent, body: Data("not json".utf8)))
        let client = APIClient(requestPerformer: stub)
        try await client.perform(DeleteUser(id: 3))
        #expect(try await client.perform(Ping()) == EmptyResponse())
        #expect(stub.requests.first?.httpMethod == "DELETE")
    }

    @Test func passesDataThroughUnmodified() async throws {
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let stub = StubPerformer(always: HTTPResponse(status: .ok, body: bytes))
        #expect(try await APIClient(requestPerformer: stub).perform(Avatar()) == bytes)
    }

    @Test func rejectsAnUnacceptedStatusWithTheDecodedErrorBody() async throws {
        let stub = StubPerformer(responses: [jsonResponse(#"{"message": "no such user"}"#, status: .notFound)])
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(GetUser(id: 42))
        }
        #expect(error.code == .status)
        #expect(error.stage == .status)
        #expect(error.status == .notFound)
        #expect(error.errorResponse(as: APIProblem.self) == APIProblem(message: "no such user"))
        #expect(
            error.description == """
                error: unacceptable status 404 Not Found
                  --> GET https://api.example.com/users/42 [stage: status]
                   |
                   | status: 404 Not Found
                   | body: {"message": "no such user"}
                   | error response: APIProblem(message: "no such user")
                """
        )
    }

    @Test func namesEveryStatusWithItsReasonPhrase() async throws {
        let teapot = StubPerformer(always: HTTPResponse(status: 418, body: Data("short and stout".utf8)))
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: teapot).perform(Avatar())
        }
        #expect(
            error.description == """
                error: unacceptable status 418 I'm a Teapot
                  --> GET https://api.example.com/avatar.png [stage: status]
                   |
                   | status: 418 I'm a Teapot
                   | body: short and stout
                """
        )
        let unregistered = StubPerformer(always: HTTPResponse(status: 599))
        let unknown = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: unregistered).perform(Avatar())
        }
        #expect(unknown.message == "unacceptable status 599 unknown")
    }

    @Test func keepsTheRawBodyWhenTheErrorBodyDoesNotDecode() async throws {
        let stub = StubPerformer(responses: [
            HTTPResponse(status: .badGateway, body: Data("<html>bad gateway</html>".utf8))
        ])
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(GetUser(id: 42))
        }
        #expect(error.code == .status)
        #expect(error.errorResponse == nil)
        #expect(error.response?.body == Data("<html>bad gateway</html>".utf8))
        #expect(
            error.description.hasSuffix(
                "   | body: <html>bad gateway</html>\n"
                    + "   | error response did not decode: expected a value, found '<'"
            )
        )
        // What JSONDecoder throws for bytes that are not JSON, with the JSONError under it.
        guard case .dataCorrupted(let context)? = error.errorResponseDecodingError as? DecodingError else {
            Issue.record("the error body's decoding threw \(String(describing: error.errorResponseDecodingError))")
            return
        }
        #expect(context.underlyingError is JSONError)
    }

    @Test func boundsTheBodyInItsDescription() async throws {
        let body = Data((String(repeating: "x", count: 511) + "é\n" + String(repeating: "y", count: 100)).utf8)
        let stub = StubPerformer(responses: [HTTPResponse(status: .internalServerError, body: body)])
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(GetUser(id: 1))
        }
        // The 512th byte starts "é": the excerpt stops before it rather than show half a character.
        let excerpt = String(repeating: "x", count: 511) + "… (103 more bytes)"
        #expect(error.bodyExcerpt == excerpt)
        #expect(error.description.contains("   | body: " + excerpt + "\n"))
        #expect(error.response?.body == body)
    }

    @Test func acceptsStatusesItIsToldTo() async throws {
        let stub = StubPerformer(always: jsonResponse(#"{"id": 1, "name": "Ada"}"#, status: .notModified))
        let client = APIClient(requestPerformer: stub, acceptableStatus: .codes(200..<300, 304))
        #expect(try await client.perform(GetUser(id: 1)).name == "Ada")
        #expect(APIClient.StatusValidation.successful.accepts(.created))
        #expect(!APIClient.StatusValidation.successful.accepts(.notModified))
        #expect(APIClient.StatusValidation.any.accepts(.internalServerError))
    }

    @Test func reportsInvalidJSONWithLineAndColumn() async throws {
        let stub = StubPerformer.json("[{\"id\": 1,\n  \"name\": \"Ada\",}]")
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(error.code == .deserialize)
        #expect(error.jsonError?.line == 2)
        // The stages that ran are timed, the failing one included; the parse stage never started.
        #expect(error.metrics.deserialize > .zero)
        #expect(error.metrics.parse == .zero)
        #expect(error.metrics.responseBodyBytes == 29)
        #expect(
            error.description == """
                error: invalid JSON in the response body: expected a string key, found '}'
                  --> GET https://api.example.com/users, body line 2, column 17 (byte 27) [stage: deserialize]
                   |
                 2 |   "name": "Ada",}]
                   |                 ^
                   | status: 200 OK
                   | body: [{"id": 1,   "name": "Ada",}]
                """
        )
    }

    @Test func reportsAParseFailureWithItsJSONPath() async throws {
        let stub = StubPerformer.json(#"[{"id": 1, "name": "Ada"}, {"id": "2", "name": "Grace"}]"#)
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(error.code == .parse)
        #expect(error.jsonPath == "$[1].id")
        #expect(error.metrics.deserialize > .zero)
        #expect(error.metrics.parse > .zero)
        #expect(error.underlyingError is DecodingError)
        #expect(
            error.description == """
                error: cannot parse the response: expected Int, found string "2"
                  --> GET https://api.example.com/users at $[1].id [stage: parse]
                   |
                   | status: 200 OK
                   | body: [{"id": 1, "name": "Ada"}, {"id": "2", "name": "Grace"}]
                """
        )
    }

    @Test func reportsAMissingKeyWithItsJSONPath() async throws {
        let stub = StubPerformer.json(#"{"id": 1}"#)
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(GetUser(id: 1))
        }
        #expect(error.jsonPath == "$.name")
        #expect(error.message == #"cannot parse the response: no value for key "name""#)
    }

    @Test func reportsABuildFailureAndSendsNothing() async throws {
        struct Broken: Request {
            typealias ResponseObject = Void
            struct Missing: Error, CustomStringConvertible {
                var description: String { "no base URL configured" }
            }
            func build() throws -> URLRequest { throw Missing() }
        }
        let stub = StubPerformer(responses: [])
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(Broken())
        }
        #expect(error.code == .build)
        #expect(error.request == nil)
        #expect(stub.requests.isEmpty)
        #expect(
            error.description == """
                error: cannot build the request: no base URL configured
                  --> (request not built) [stage: build]
                   |
                """
        )
    }

    @Test func reportsATransportFailure() async throws {
        let stub = StubPerformer { _ in throw URLError(.cannotConnectToHost) }
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(error.code == .transport)
        #expect(error.stage == .transport)
        #expect(error.request?.url?.path == "/users")
        #expect(error.message.hasPrefix("the request failed: URLError -1004: "))
    }

    @Test func reportsATimeoutWithItsStage() async throws {
        let stub = StubPerformer { _ in throw URLError(.timedOut) }
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(error.code == .timedOut)
        #expect(error.stage == .transport)
        #expect(error.message == "the request timed out during the transport stage")
    }

    @Test func reportsCancellation() async throws {
        let arrived = Signal("the request at the performer")
        // A transport that never answers by itself: only the cancellation ends its sleep, whatever its length.
        let stub = StubPerformer { _ in
            arrived.fire()
            try await Task.sleep(for: .seconds(30))
            return jsonResponse("[]")
        }
        let task = Task { try await APIClient(requestPerformer: stub).perform(ListUsers()) }
        // Cancelled once the request has reached the performer, so that the transport stage is the one cancelled.
        try await arrived.wait()
        task.cancel()
        let error = try await #require(throws: SluiceError.self) { try await task.value }
        #expect(error.code == .cancelled)
        #expect(error.stage == .transport)
        #expect(error.metrics.transport > .zero)
        #expect(error.message == "the request was cancelled during the transport stage")
    }

    @Test func passesASluiceErrorFromThePerformerThroughOnce() async throws {
        let original = SluiceError(.transport, message: "gave up after 3 attempts")
        let stub = StubPerformer { _ in throw original }
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(error.message == "gave up after 3 attempts")
        #expect(error.underlyingError == nil)
        #expect(error.request?.url?.path == "/users")
    }

    @Test func failsClearlyWhenCannedResponsesRunOut() async throws {
        let stub = StubPerformer(responses: [])
        let error = try await #require(throws: SluiceError.self) {
            try await APIClient(requestPerformer: stub).perform(ListUsers())
        }
        #expect(
            error.message
                == "the request failed: no canned response left for request #1, GET https://api.example.com/users: "
                + "the stub was given 0"
        )
    }
}
