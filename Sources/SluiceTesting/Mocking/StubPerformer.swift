import Foundation
public import SluiceCore

/// A `RequestPerformer` that answers from canned responses or a closure, with no network, and records
/// every request it is given.
///
/// ```swift
/// let stub = StubPerformer.json(#"[{"id": 1, "name": "Ada"}]"#)
/// let client = APIClient(requestPerformer: stub)
/// let users = try await client.perform(ListUsers())
/// #expect(stub.requests.first?.url?.path == "/users")
/// ```
public final class StubPerformer: RequestPerformer {
    private let respond: @Sendable (URLRequest, Int) async throws -> HTTPResponse
    /// The script every request's stream plays, for a stub made with ``init(streaming:)``.
    private let script: MockClient.StreamScript?
    /// The server every WebSocket handshake opens, for a stub made with ``init(webSocket:)``.
    private let socket: MockClient.WebSocketScript?
    private let recorded = Locked<[URLRequest]>([])

    /// Creates a stub that answers with a closure.
    ///
    /// - Parameter respond: Returns the response for a request, or throws as a transport would.
    public init(_ respond: @escaping @Sendable (URLRequest) async throws -> HTTPResponse) {
        self.respond = { request, _ in try await respond(request) }
        self.script = nil
        self.socket = nil
    }

    /// Creates a stub that answers with canned responses in order, and fails clearly once they run out.
    ///
    /// - Parameter responses: The responses, one per request.
    public init(responses: [HTTPResponse]) {
        self.respond = { request, index in
            guard index < responses.count else {
                throw SluiceTestingError(
                    .unstubbedRequest,
                    "no canned response left for request #\(index + 1), "
                        + "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)"): "
                        + "the stub was given \(responses.count)"
                )
            }
            return responses[index]
        }
        self.script = nil
        self.socket = nil
    }

    /// Creates a stub that answers every request with a play of a scripted stream: ``stream(_:)`` hands the body out
    /// as the script plays it, ``perform(_:)`` returns it whole.
    ///
    /// ```swift
    /// let stub = StubPerformer(streaming: MockClient.StreamScript(parts: [.text("one\n"), .pause(.milliseconds(5)), .text("two\n")]))
    /// let lines = try await APIClient(requestPerformer: stub).lines(TailLog())
    /// ```
    ///
    /// - Parameter script: The scripted head and body.
    public init(streaming script: MockClient.StreamScript) {
        self.respond = { _, _ in try await script.play().collect(upTo: .max) }
        self.script = script
        self.socket = nil
    }

    /// Creates a stub that answers every WebSocket handshake with a play of a scripted server; its HTTP requests
    /// fail.
    ///
    /// ```swift
    /// let server = MockClient.WebSocketScript.echo()
    /// let socket = try await StubPerformer(webSocket: server).webSocket(URLRequest(url: url))
    /// ```
    ///
    /// - Parameter socket: The scripted server.
    public init(webSocket socket: MockClient.WebSocketScript) {
        self.respond = { request, _ in
            throw SluiceTestingError(
                .unstubbedRequest,
                "the stub answers WebSocket handshakes only, not \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)")"
            )
        }
        self.script = nil
        self.socket = socket
    }

    /// Creates a stub that gives the same response to every request.
    ///
    /// - Parameter response: The response.
    public convenience init(always response: HTTPResponse) {
        self.init { _ in response }
    }

    /// A stub that answers every request with a JSON body.
    ///
    /// - Parameters:
    ///   - text: The JSON text of the body.
    ///   - status: The status; 200 by default.
    /// - Returns: The stub.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> StubPerformer {
        StubPerformer(
            always: HTTPResponse(status: status, headers: [.contentType: "application/json"], body: Data(text.utf8))
        )
    }

    /// The requests received so far, in order.
    public var requests: [URLRequest] {
        recorded.withLock { $0 }
    }

    /// Records the request and answers it.
    ///
    /// - Parameter request: The request.
    /// - Returns: The canned or computed response.
    /// - Throws: What the closure throws, or ``SluiceTestingError`` when the canned responses ran out.
    public func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await respond(request, record(request))
    }

    /// Records the request and answers it: with a play of the script for a stub made with ``init(streaming:)``, with
    /// the whole response as one chunk otherwise.
    ///
    /// - Parameter request: The request.
    /// - Returns: The streamed response.
    /// - Throws: What ``perform(_:)`` throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let index = record(request)
        if let script {
            return script.play()
        }
        return HTTPResponse.Streamed(try await respond(request, index))
    }

    /// Records the handshake's request and answers it: with a play of the scripted server for a stub made with
    /// ``init(webSocket:)``; otherwise with the stub's HTTP response, which refuses the handshake as a server that
    /// does not switch protocols would.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols offered; the scripted server chooses the first it speaks.
    ///   - configuration: Not used: the scripted server sends whole messages.
    /// - Returns: The open WebSocket.
    /// - Throws: `SluiceError` of the `handshake` code with the HTTP response; what the
    ///   closure throws.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        let index = record(request)
        if let socket {
            return socket.open(request, protocols: protocols)
        }
        let response = try await respond(request, index)
        guard response.status.code != 101 else {
            throw SluiceTestingError(
                .unstubbedRequest,
                "the stub answers 101 with no WebSocket to open: make it with StubPerformer(webSocket:) instead"
            )
        }
        throw SluiceError(
            .handshake,
            message:
                "the WebSocket handshake failed: \(WebSocketHandshake.refusal(response.status))",
            request: request,
            response: response
        )
    }

    /// Records a request and returns its number, counted from 0.
    private func record(_ request: URLRequest) -> Int {
        recorded.withLock { requests in
            requests.append(request)
            return requests.count - 1
        }
    }
}
