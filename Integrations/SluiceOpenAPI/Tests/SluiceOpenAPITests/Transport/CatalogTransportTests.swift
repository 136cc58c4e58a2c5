import Foundation
import HTTPTypes
import NIOCore
import OpenAPIRuntime
import SluiceCore
import SluiceOpenAPI
import Testing

/// The generated client of the test API, against the generated server on Hummingbird, through each transport: every
/// operation gives the same output, and every response the same status, fields and bytes, on Sluice's transport (on
/// both its performers) as on async-http-client's, the reference.
@Suite struct CatalogTransportTests {
    /// Every operation of the API, with its inputs, each run reduced to a value the transports must agree on.
    static let operations: [(name: String, run: @Sendable (Client) async throws -> String)] = [
        ("list", { String(describing: try await $0.listItems(query: .init(limit: 1, tag: ["light"])).ok) }),
        ("list-all", { String(describing: try await $0.listItems().ok) }),
        ("get", { String(describing: try await $0.getItem(path: .init(itemId: "42")).ok.body.json) }),
        (
            "get-fields",
            { String(describing: try await $0.getItem(path: .init(itemId: "42"), query: .init(fields: "name"))) }
        ),
        (
            "get-encoded",
            { String(describing: try await $0.getItem(path: .init(itemId: "a b/c?d")).notFound.body.json) }
        ),
        ("get-gone", { String(describing: try await $0.getItem(path: .init(itemId: "7")).gone.body.json) }),
        ("get-default", { String(describing: try await $0.getItem(path: .init(itemId: "broken"))) }),
        (
            "create",
            {
                String(
                    describing: try await $0.createItem(body: .json(.init(name: "Chair", tags: ["home"], price: 45)))
                        .created
                )
            }
        ),
        (
            "create-refused",
            { String(describing: try await $0.createItem(body: .json(.init(name: "", tags: []))).unprocessableContent) }
        ),
        ("head", { String(describing: try await $0.checkItem(path: .init(itemId: "42")).noContent.headers) }),
        ("head-missing", { String(describing: try await $0.checkItem(path: .init(itemId: "0"))) }),
        (
            "multipart",
            { client in
                let parts: MultipartBody<Operations.UploadAttachment.Input.Body.MultipartFormPayload> = [
                    .description(.init(payload: .init(body: "the manual"))),
                    .file(
                        .init(
                            payload: .init(
                                body: OpenAPIRuntime.HTTPBody(
                                    PatternBytes(size: 300_000),
                                    length: .known(300_000),
                                    iterationBehavior: .multiple
                                )
                            ),
                            filename: "manual.pdf"
                        )
                    ),
                ]
                return String(
                    describing: try await client.uploadAttachment(
                        path: .init(itemId: "42"),
                        body: .multipartForm(parts)
                    ).ok.body.json
                )
            }
        ),
        (
            "events",
            { client in
                let body = try await client.streamEvents(query: .init(count: 5)).ok.body.applicationJsonl
                var events: [String] = []
                for try await event in body.asDecodedJSONLines(of: Components.Schemas.Event.self) {
                    events.append("\(event.sequence): \(event.message)")
                }
                return events.joined(separator: ", ")
            }
        ),
        (
            "download",
            { client in
                let body = try await client.downloadBlob(path: .init(size: 3_000_000)).ok.body.binary
                var summary = ByteSummary()
                for try await chunk in body {
                    summary.add(chunk)
                }
                return "\(body.length) \(summary)"
            }
        ),
        (
            "upload",
            { client in
                let body = OpenAPIRuntime.HTTPBody(
                    PatternBytes(size: 2_000_000),
                    length: .known(2_000_000),
                    iterationBehavior: .single
                )
                return String(describing: try await client.upload(body: .binary(body)).ok.body.json)
            }
        ),
        (
            "upload-chunked",
            { client in
                let body = OpenAPIRuntime.HTTPBody(
                    PatternBytes(size: 1_000_000),
                    length: .unknown,
                    iterationBehavior: .multiple
                )
                return String(describing: try await client.upload(body: .binary(body)).ok.body.json)
            }
        ),
        (
            "unavailable",
            { String(describing: try await $0.getFlaky(path: .init(key: "k"), query: .init(failures: 1))) }
        ),
        ("unauthorized", { String(describing: try await $0.getSecret()) }),
    ]

    /// What each operation gave, and what each response was on the wire, through one transport against a new server.
    static func outcomes(through transport: CatalogTransport) async throws -> (outputs: [String], wire: [WireResponse])
    {
        try await CatalogServer.with(CatalogService()) { serverURL in
            let recorder = WireRecorder()
            let client = transport.client(serverURL, middlewares: [recorder])
            var outputs: [String] = []
            for operation in operations {
                outputs.append("\(operation.name): \(try await operation.run(client))")
            }
            return (outputs, recorder.responses)
        }
    }

    @Test(arguments: CatalogTransport.sluice)
    func givesWhatTheReferenceTransportGives(_ transport: CatalogTransport) async throws {
        let reference = try await Self.outcomes(through: .asyncHTTPClient)
        let sluice = try await Self.outcomes(through: transport)
        #expect(sluice.outputs.count == Self.operations.count)
        for (mine, theirs) in zip(sluice.outputs, reference.outputs) {
            #expect(mine == theirs)
        }
        #expect(sluice.wire.count == reference.wire.count)
        for (mine, theirs) in zip(sluice.wire, reference.wire) {
            #expect(mine == theirs)
        }
    }

    /// The outputs are what the server meant, so that agreeing with the reference means something.
    @Test func givesWhatTheServerSent() async throws {
        let outputs = try await Self.outcomes(through: .sluiceSockets).outputs
        #expect(outputs.contains { $0.hasPrefix("get: Item(id: \"42\", name: \"Lamp\"") })
        #expect(outputs.contains("events: 0: event 0, 1: event 1, 2: event 2, 3: event 3, 4: event 4"))
        #expect(outputs.contains("download: known(3000000) \(PatternBytes(size: 3_000_000).summary)"))
        let upload = PatternBytes(size: 2_000_000).summary
        #expect(outputs.contains("upload: UploadSummary(size: 2000000, checksum: \(upload.checksum))"))
        let file = PatternBytes(size: 300_000).summary
        #expect(
            outputs.contains(
                "multipart: Attachment(itemId: \"42\", description: \"the manual\", size: 300000, checksum: \(file.checksum))"
            )
        )
    }

    /// An operation that cannot reach its server fails alike on every transport: a `ClientError` from the transport
    /// stage; on Sluice's, its underlying error is the `SluiceError` the performer reported.
    @Test(arguments: CatalogTransport.allCases)
    func failsAsTheReferenceFailsWhenNoServerListens(_ transport: CatalogTransport) async throws {
        let closed = try #require(URL(string: "http://127.0.0.1:1/v1"))
        let error = await #expect(throws: ClientError.self) {
            _ = try await transport.client(closed, timeout: .seconds(1)).getItem(path: .init(itemId: "42"))
        }
        #expect(error?.operationID == "getItem")
        #expect(error?.causeDescription == "Transport threw an error.")
        #expect(error?.response == nil)
        if transport != .asyncHTTPClient {
            let underlying = try #require(error?.underlyingError as? SluiceError)
            #expect(underlying.code == .transport)
            #expect(underlying.request?.url?.absoluteString == "http://127.0.0.1:1/v1/items/42")
        }
    }
}
