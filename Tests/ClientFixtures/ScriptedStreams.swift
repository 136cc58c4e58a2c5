import Foundation
package import SluiceCore

/// A performer that streams scripted responses, counts its calls, and keeps every body's writer, so that a test sees
/// whether a body it was handed, or one a decorator dropped, had its transfer ended.
package final class ScriptedStreams: RequestPerformer {
    /// One response: its head, the chunks written at once, and how its body goes on after them.
    package struct Scripted: Sendable {
        package var status: HTTPStatus
        package var headers: HTTPHeaders = [:]
        package var chunks: [String] = []
        package var end: End = .open

        package init(status: HTTPStatus, headers: HTTPHeaders = [:], chunks: [String] = [], end: End = .open) {
            self.status = status
            self.headers = headers
            self.chunks = chunks
            self.end = end
        }
    }

    /// How a scripted body goes on after its chunks.
    package enum End: Sendable {
        /// It ends.
        case finished
        /// It fails with an error.
        case failed(any Error)
        /// It stays open, for the test to write to through ``ScriptedStreams/writers``.
        case open
    }

    private let respond: @Sendable (URLRequest, Int) async throws -> Scripted
    private let recorded = Locked<(requests: [URLRequest], writers: [HTTPBody.Writer])>(([], []))

    /// A performer whose call answers with what `respond` returns for the request and its index, counted from 0,
    /// or throws what it throws.
    package init(_ respond: @escaping @Sendable (URLRequest, Int) async throws -> Scripted) {
        self.respond = respond
    }

    /// A performer that answers with the responses in turn, then with the last one.
    package convenience init(_ responses: [Scripted]) {
        self.init { _, index in responses[min(index, responses.count - 1)] }
    }

    /// The requests received, in order.
    package var requests: [URLRequest] { recorded.withLock { $0.requests } }

    /// The writers of the bodies handed out, in order.
    package var writers: [HTTPBody.Writer] { recorded.withLock { $0.writers } }

    package func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let index = recorded.withLock { recorded in
            recorded.requests.append(request)
            return recorded.requests.count - 1
        }
        let scripted = try await respond(request, index)
        let (body, writer) = HTTPBody.makeStream(expectedLength: nil)
        recorded.withLock { $0.writers.append(writer) }
        for chunk in scripted.chunks {
            writer.write(Data(chunk.utf8))
        }
        switch scripted.end {
        case .finished: writer.finish()
        case .failed(let error): writer.finish(throwing: error)
        case .open: break
        }
        return HTTPResponse.Streamed(status: scripted.status, headers: scripted.headers, body: body)
    }

    package func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: 1 << 20)
    }
}
