import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import Sluice
import SluiceOpenAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sluice's pipeline over another library's OpenAPI transport: a Sluice request, through `OpenAPITransportPerformer`
/// on async-http-client's transport, against the test API's server.
@Suite struct OpenAPITransportPerformerTests {
    struct Item: Decodable, Equatable {
        var id: String
        var name: String
        var tags: [String]
    }

    /// `GET /items/{id}`, as a Sluice request.
    struct GetItem: Request {
        typealias ResponseObject = Item
        var baseURL: URL
        var id: String

        func build() throws -> URLRequest {
            URLRequest(url: baseURL.appending(path: "items").appending(path: id))
        }
    }

    @Test func runsASluiceClientOverAsyncHTTPClient() async throws {
        try await CatalogServer.with(CatalogService()) { serverURL in
            let client = APIClient(requestPerformer: OpenAPITransportPerformer(AsyncHTTPClientTransport()).retrying())
            let item = try await client.perform(GetItem(baseURL: serverURL, id: "42"))
            #expect(item == Item(id: "42", name: "Lamp", tags: ["home", "light"]))
            let missing = await #expect(throws: SluiceError.self) {
                try await client.perform(GetItem(baseURL: serverURL, id: "404"))
            }
            #expect(missing?.code == .status)
            #expect(missing?.status?.code == 404)
        }
    }

    @Test func sendsABodyAndStreamsTheResponse() async throws {
        try await CatalogServer.with(CatalogService()) { serverURL in
            let performer = OpenAPITransportPerformer(AsyncHTTPClientTransport())
            var create = URLRequest(url: serverURL.appending(path: "items"))
            create.httpMethod = "POST"
            create.setValue("application/json", forHTTPHeaderField: "Content-Type")
            create.httpBody = Data(#"{"name":"Chair","tags":["home"]}"#.utf8)
            let created = try await performer.perform(create)
            #expect(created.status.code == 201)
            // The generated server writes a header value as the runtime's URI coding does, slashes percent-encoded.
            #expect(created.headers["Location"] == "%2Fv1%2Fitems%2F100")
            #expect(String(decoding: created.body, as: UTF8.self).contains(#""name" : "Chair""#))

            let download = try await performer.stream(URLRequest(url: serverURL.appending(path: "blobs/1000000")))
            #expect(download.status == .ok)
            #expect(download.body.expectedLength == 1_000_000)
            var summary = ByteSummary()
            for try await chunk in download.body {
                summary.add(chunk)
            }
            #expect(summary == PatternBytes(size: 1_000_000).summary)
        }
    }

    @Test func refusesABodyStreamItCannotRead() async throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:1/v1/uploads")))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("abc".utf8))
        let error = await #expect(throws: SluiceError.self) {
            try await OpenAPITransportPerformer(AsyncHTTPClientTransport()).perform(request)
        }
        #expect(
            error?.invalidField?.description
                == "URLRequest.httpBodyStream: OpenAPITransportPerformer sends bodies of data: a body stream cannot be read without blocking here"
        )
    }
}
