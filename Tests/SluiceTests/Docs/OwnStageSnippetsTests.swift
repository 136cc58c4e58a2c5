// Two snippets of stages of a user's own, verbatim: the "Downloads" article's transport, run under an upload, and the
// "Declarative endpoints" article's endpoint with its own deserialize stage, against a stub.
import Foundation
import Sluice
import SluiceTesting
import Testing

/// The "Downloads" article's transport: reports the whole body as sent, then hands the request on.
private struct CountingTransport: RequestPerformer {
    let base: any RequestPerformer

    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let total = Int64(request.httpBody?.count ?? 0)
        RequestContext.current?.uploadProgress?(total, total)
        return try await base.perform(request)
    }
}

private struct Event: Decodable, Equatable, Sendable {
    let id: String
}

/// The "Declarative endpoints" article's deserializer: the JSON after an anti-hijacking prefix.
private struct GuardedDeserializer: Deserializer {
    func deserialize(_ data: Data) throws -> Any {
        let prefix = Data(")]}'\n".utf8)
        let body = data.starts(with: prefix) ? data.dropFirst(prefix.count) : data
        return try JSONDeserializer().deserialize(Data(body))
    }
}

/// The "Declarative endpoints" article's endpoint, naming both of its stages.
private struct ListEvents: Endpoint {
    static let definition: Definition<ListEvents> = Definition(method: .get, path: "events")
    typealias Response = [Event]

    var deserializer: (any Deserializer)? { GuardedDeserializer() }

    func parse(_ json: JSON) throws -> [Event] {
        try responseDecoder.decode([Event].self, from: json)
    }
}

@Suite struct OwnStageSnippetsTests {
    private struct Post: Request {
        typealias ResponseObject = Data

        func build() throws -> URLRequest {
            var request = URLRequest(url: URL(filePath: "/files"))
            request.httpMethod = "POST"
            request.httpBody = Data(count: 12)
            return request
        }
    }

    @Test func theArticlesTransportReportsThroughTheContext() async throws {
        let client = APIClient(requestPerformer: CountingTransport(base: StubPerformer.json("{}")))
        let upload = client.upload(Post())
        var reports: [TransferProgress] = []
        for await progress in upload.progress {
            reports.append(progress)
        }
        #expect(try await upload.finished() == Data("{}".utf8))
        #expect(reports.map(\.bytesTransferred) == [12])
        #expect(reports.map(\.expectedBytes) == [12])
    }

    @Test func theArticlesEndpointNamesBothStages() async throws {
        let server = Server([.production: URL(string: "https://api.example.com")!])
        let guarded = APIClient(requestPerformer: StubPerformer.json(")]}'\n[{\"id\": \"1\"}]"))
        #expect(try await Server.withDefault(server) { try await guarded.perform(ListEvents()) } == [Event(id: "1")])
        let malformed = APIClient(requestPerformer: StubPerformer.json(")]}'\n[{\"id\": "))
        let error = try await #require(throws: SluiceError.self) {
            try await Server.withDefault(server) { try await malformed.perform(ListEvents()) }
        }
        #expect(error.code == .deserialize, "the prefix is stripped and the JSON parsed in the deserialize stage")
    }
}
