import ClientFixtures
import Foundation
import SluiceCore
import SluiceTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which response objects skip the deserialize and parse stages: the request's `responseObject(passingThrough:)`,
/// picked by the response object's type when the request type conforms.
@Suite struct PassThroughTests {
    /// Not JSON: a request that deserialized it would fail in the deserialize stage.
    static let text = Data("plain text, not JSON".utf8)

    struct Bytes: Request {
        typealias ResponseObject = Data
        func build() throws -> URLRequest { URLRequest(url: try testURL("https://example.com/bytes")) }
    }

    struct Nothing: Request {
        typealias ResponseObject = Void
        func build() throws -> URLRequest { URLRequest(url: try testURL("https://example.com/nothing")) }
    }

    struct Empty: Request {
        typealias ResponseObject = EmptyResponse
        func build() throws -> URLRequest { URLRequest(url: try testURL("https://example.com/empty")) }
    }

    /// A request that makes its own response object from the bytes.
    struct Readme: Request {
        typealias ResponseObject = String

        func build() throws -> URLRequest {
            URLRequest(url: try testURL("https://example.com/README"))
        }

        func responseObject(passingThrough body: Data) -> String? {
            String(decoding: body, as: UTF8.self)
        }
    }

    /// A request generic over its response object: it conforms once for every type, and is answered when the
    /// response arrives.
    struct Generic<Object: Sendable>: Request {
        typealias ResponseObject = Object
        func build() throws -> URLRequest { URLRequest(url: try testURL("https://example.com/generic")) }
        func parse(_ json: JSON) throws -> Object {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "parsed, not passed through"))
        }
    }

    @Test func theResponseObjectsTypePassesTheBodyThrough() async throws {
        let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Self.text)))
        #expect(try await client.perform(Bytes()) == Self.text)
        try await client.perform(Nothing())
        #expect(try await client.perform(Empty()) == EmptyResponse())
        #expect(try await client.perform(Readme()) == "plain text, not JSON")
        #expect(try await client.perform(Generic<Data>()) == Self.text)
        #expect(try await client.perform(Generic<EmptyResponse>()) == EmptyResponse())
    }

    /// Any other type is deserialized and parsed, a type that could hold the bytes (`any Sendable`) included.
    @Test func everyOtherTypeIsDeserializedAndParsed() async throws {
        let client = APIClient(requestPerformer: StubPerformer(always: HTTPResponse(status: .ok, body: Self.text)))
        let error = await #expect(throws: SluiceError.self) { try await client.perform(Generic<any Sendable>()) }
        #expect(error?.code == .deserialize)
        #expect(Generic<String>().responseObject(passingThrough: Self.text) == nil)
        #expect(Readme().responseObject(passingThrough: Data("a".utf8)) == "a")
    }
}
