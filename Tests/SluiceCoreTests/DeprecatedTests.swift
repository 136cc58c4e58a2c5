import ClientFixtures
import Foundation
import SluiceCore
import Testing

/// The spellings kept from before each concept had one name still compile and still do what their replacements do.
///
/// The only place the tests use them, so the compiler's deprecation warnings stand here alone.
@Suite struct DeprecatedTests {
    @Test func theStaticUploadProgressIsTheCurrentContexts() async throws {
        let reports = Locked<[Int64]>([])
        struct Reporting: RequestPerformer {
            func perform(_ request: URLRequest) async throws -> HTTPResponse {
                RequestContext.uploadProgress?(5, 10)
                return HTTPResponse(status: .ok, body: Data("{}".utf8))
            }
        }
        struct Post: Request {
            typealias ResponseObject = Data
            func build() throws -> URLRequest { URLRequest(url: URL(filePath: "/upload")) }
        }
        let upload = APIClient(requestPerformer: Reporting()).upload(Post())
        for await progress in upload.progress {
            reports.withLock { $0.append(progress.bytesTransferred) }
        }
        _ = try await upload.finished()
        #expect(reports.withLock { $0 } == [5])
        #expect(RequestContext.uploadProgress == nil)
    }

    private struct Reading: Decodable, Equatable, Sendable {
        let sensor: String
        let value: Double
    }

    /// What a deprecated typed stream read, or the error that ended it.
    private static func outcome<S: AsyncSequence>(of elements: S) async -> ([S.Element], StreamParseError?) {
        var read: [S.Element] = []
        do {
            for try await element in elements {
                read.append(element)
            }
        } catch {
            return (read, error as? StreamParseError)
        }
        return (read, nil)
    }

    @Test func theLineSequenceReadsAsTheClientsLines() async throws {
        let body = Chunks("a\r", "\nb\r\n", "123", "456\nc")
        let (lines, error) = await Self.outcome(of: LineSequence(base: body, maximumLength: 5))
        #expect(lines == ["a", "b"])
        #expect(error?.code == .lineTooLong)
        #expect(error?.line == 3)
        #expect(try await LineSequence(base: Chunks("one\ntwo")).collected() == ["one", "two"])
    }

    @Test func theLinesMethodReadsAsTheClientsLines() async throws {
        let body = Chunks("first\r", "\nsecond\n\nlast")
        let lines: LineSequence<Chunks> = body.lines()
        #expect(try await lines.collected() == ["first", "second", "", "last"])
        #expect(try await lines.collected() == body.decodingLines().collected())
        let (read, error) = await Self.outcome(of: Chunks("12345\n123456\n").lines(maximumLength: 5))
        #expect(read == ["12345"])
        #expect(error?.code == .lineTooLong)
        let task = Task { try await lines.collected() }
        #expect(try await task.value.count == 4)
    }

    @Test func theJSONLinesSequenceDecodesAsTheClientsJSONLines() async throws {
        var decoder = JSONDocumentDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Sample: Decodable, Equatable {
            let sensorName: String
        }
        let body = Chunks("{\"sensor_name\":\"a\"}\n\n{\"sensor_", "name\":\"b\"}\n")
        let records = JSONLinesSequence<Chunks, Sample>(base: body, decoder: decoder)
        #expect(try await records.collected() == [Sample(sensorName: "a"), Sample(sensorName: "b")])
        let (read, error) = await Self.outcome(
            of: JSONLinesSequence<Chunks, Sample>(base: body, decoder: decoder, maximumLineLength: 10)
        )
        #expect(read == [])
        #expect(error?.code == .lineTooLong)
        #expect(error?.line == 1)
    }

    @Test func theJSONLinesMethodDecodesAsTheClientsJSONLines() async throws {
        let body = Chunks("{\"sensor\":\"a\",\"value\":1.5}\n\n{\"sensor\":\"b\",}\n")
        let (read, error) = await Self.outcome(of: body.jsonLines(of: Reading.self))
        #expect(read == [Reading(sensor: "a", value: 1.5)])
        #expect(error?.code == .invalidJSON)
        #expect(error?.line == 3)
        #expect(error?.column == 15)
        let limited = await Self.outcome(of: body.jsonLines(of: Reading.self, maximumLineLength: 8))
        #expect(limited.1?.code == .lineTooLong)
        let fine = Chunks("{\"sensor\":\"c\",\"value\":2}")
        #expect(
            try await fine.jsonLines(of: Reading.self, decoder: JSONDocumentDecoder()).collected() == [
                Reading(sensor: "c", value: 2)
            ]
        )
    }

    @Test func theServerSentEventSequenceReadsAsTheClientsEvents() async throws {
        let body = Chunks("retry: 300\ndata: a\n\nid: 8\n\ndata: b\n\ndata: never dispatched\n")
        var iterator = ServerSentEventSequence(base: body, lastEventID: "7", retry: .seconds(1)).makeAsyncIterator()
        #expect(iterator.lastEventID == "7")
        #expect(iterator.retry == .seconds(1))
        #expect(try await iterator.next() == ServerSentEvent(data: "a", lastEventID: "7", retry: .milliseconds(300)))
        #expect(try await iterator.next() == ServerSentEvent(data: "b", lastEventID: "8", retry: .milliseconds(300)))
        #expect(try await iterator.next() == nil)
        #expect(iterator.lastEventID == "8")
        #expect(iterator.retry == .milliseconds(300))

        let limited = ServerSentEventSequence(base: Chunks("data: 12345\n\n"), maximumEventSize: 4)
        let (read, error) = await Self.outcome(of: limited)
        #expect(read == [])
        #expect(error?.code == .eventTooLarge)
        let long = ServerSentEventSequence(base: Chunks("data: 12345\n\n"), maximumLineLength: 4)
        #expect(await Self.outcome(of: long).1?.code == .lineTooLong)
    }

    @Test func theServerSentEventsMethodReadsAsTheClientsEvents() async throws {
        let body = Chunks("event: price\ndata: 42.5\nid: 7\n\nda", "ta: 43\n\n")
        let events: ServerSentEventSequence<Chunks> = body.serverSentEvents()
        #expect(
            try await events.collected() == [
                ServerSentEvent(type: "price", data: "42.5", lastEventID: "7"),
                ServerSentEvent(data: "43", lastEventID: "7"),
            ]
        )
        #expect(try await events.collected() == body.decodingServerSentEvents().collected())
        let limits = body.serverSentEvents(maximumLineLength: 100, maximumEventSize: 3)
        let (read, error) = await Self.outcome(of: limits)
        #expect(read == [])
        #expect(error?.code == .eventTooLarge)
        #expect(error?.line == 2)
    }
}
