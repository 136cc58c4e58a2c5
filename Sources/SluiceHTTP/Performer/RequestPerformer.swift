/// The transport stage: sends a `URLRequest` and returns the ``HTTPResponse``, whatever its status.
///
/// ``NetworkRequestPerformer`` is the default, on `URLSession`. Cross-cutting behaviour (retry, authentication,
/// logging) is written as a performer that wraps another, so that a client is configured by composition.
///
/// A performer that adds a header to every request and delegates the rest:
///
/// ```swift
/// struct UserAgentPerformer: RequestPerformer {
///     let base: any RequestPerformer
///     let userAgent: String
///
///     func perform(_ request: URLRequest) async throws -> HTTPResponse {
///         var request = request
///         request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
///         return try await base.perform(request)
///     }
/// }
/// ```
///
/// A performer returns responses of every status; the client decides which are acceptable. It throws only when
/// there is no response: the connection failed, the task was cancelled, a limit was exceeded.
///
/// The stage has three forms. ``perform(_:)`` returns the whole response; ``stream(_:)`` returns as soon as the head
/// has arrived, with the body as an ``HTTPBody`` of chunks that arrive as they are read; and
/// ``webSocket(_:protocols:configuration:)`` runs a WebSocket's opening handshake. A performer that implements
/// only ``perform(_:)`` still streams: the default ``stream(_:)`` hands out its whole body as one chunk. A decorator
/// implements both, so that a streamed request passes through it too; see <doc:StreamedResponses>.
public protocol RequestPerformer: Sendable {
    /// Sends a request and returns its response.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, of any status.
    /// - Throws: When no complete response arrived; `CancellationError` or a cancellation `URLError` when the
    ///   calling task was cancelled.
    func perform(_ request: URLRequest) async throws -> HTTPResponse

    /// Sends a request and returns its response as soon as the head has arrived, with the body still arriving.
    ///
    /// Cancelling the task that reads the body, or dropping the body before its end, ends the transfer.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The status, headers and the body to read.
    /// - Throws: When no head arrived; an error reading the body is thrown by the body.
    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed

    /// Opens a WebSocket: runs the opening handshake (RFC 6455) for a `ws://` or `wss://` request and returns the
    /// open socket.
    ///
    /// A decorator prepares the handshake's request as it prepares any other (a credential, a signature) and passes
    /// it on to the performer it wraps, so that a client's middleware applies to WebSockets too; one that conforms to
    /// ``WrappingPerformer`` passes it on untouched by default. A performer that cannot open WebSockets keeps the
    /// default, which fails with ``SluiceError/Code/handshake`` naming it.
    ///
    /// - Parameters:
    ///   - request: A GET request without a body, to a `ws://` or `wss://` URL.
    ///   - protocols: The subprotocols to offer, in order of preference.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket.
    /// - Throws: ``SluiceError`` of the handshake stage when the server refused or broke the handshake, with the
    ///   response's status and fields when one arrived; what connecting throws otherwise.
    func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket

    /// The request as this performer would send it now: with the header fields it adds of its own, such as the
    /// cookies of its store, the `Accept-Encoding` of what it decodes and its `User-Agent`.
    ///
    /// It sends nothing. A cache above the performer (``CachingPerformer``) matches a stored response's `Vary` against
    /// it, so that a response that varies on `Cookie` is served only to a request that would carry the same cookies.
    /// A performer that adds no field keeps the default, which returns the request as it is; one that conforms to
    /// ``WrappingPerformer`` asks the performer it wraps by default, so a decorator of yours that adds a field below a
    /// cache makes the same change here and passes the result on:
    ///
    /// ```swift
    /// func requestAsSent(_ request: URLRequest) -> URLRequest {
    ///     var request = request
    ///     request.setValue("Catalog/2.1", forHTTPHeaderField: "User-Agent")
    ///     return base.requestAsSent(request)
    /// }
    /// ```
    ///
    /// - Parameter request: The request as the performer would be given it.
    /// - Returns: The request with the fields the performer, and those below it, would add.
    func requestAsSent(_ request: URLRequest) -> URLRequest
}

extension RequestPerformer {
    /// Sends the request with ``perform(_:)`` and hands out the whole body as one chunk: the streaming form of a
    /// performer that only buffers.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, its body complete.
    /// - Throws: What ``perform(_:)`` throws.
    public func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        HTTPResponse.Streamed(try await perform(request))
    }

    /// Fails: a performer opens WebSockets only when it implements this requirement.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: Never.
    /// - Throws: ``SluiceError`` of the ``SluiceError/Code/handshake`` code naming the performer.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        throw SluiceError(
            .handshake,
            message:
                "\(Self.self) does not open WebSockets (a decorator passes them on to the performer it wraps when it conforms to WrappingPerformer)",
            request: request
        )
    }

    /// The request as it is: a performer that adds no header field of its own sends what it is given.
    ///
    /// - Parameter request: The request.
    /// - Returns: The same request.
    public func requestAsSent(_ request: URLRequest) -> URLRequest {
        request
    }

    /// Opens a WebSocket with the default ``WebSocket/Configuration``.
    ///
    /// - Parameters:
    ///   - request: A GET request without a body, to a `ws://` or `wss://` URL.
    ///   - protocols: The subprotocols to offer, in order of preference; none by default.
    /// - Returns: The open WebSocket.
    /// - Throws: What ``webSocket(_:protocols:configuration:)`` throws.
    public func webSocket(_ request: URLRequest, protocols: [String] = []) async throws -> WebSocket {
        try await webSocket(request, protocols: protocols, configuration: WebSocket.Configuration())
    }
}

/// A performer that wraps another, its ``base``: what it does not do itself passes on to it.
///
/// Conforming is how a decorator of yours lets WebSockets through: its handshakes go to the base performer unless it
/// implements ``RequestPerformer/webSocket(_:protocols:configuration:)`` itself (to add a header to the handshake, say).
/// Such an implementation must match the requirement exactly, its three parameters and `async throws` included, and be
/// declared on the type that conforms (not on a subclass): otherwise this default answers and the implementation is
/// never called.
///
/// ```swift
/// struct UserAgentPerformer: WrappingPerformer {
///     let base: any RequestPerformer
///
///     func perform(_ request: URLRequest) async throws -> HTTPResponse {
///         var request = request
///         request.setValue("Catalog/2.1", forHTTPHeaderField: "User-Agent")
///         return try await base.perform(request)
///     }
/// }
/// ```
public protocol WrappingPerformer: RequestPerformer {
    /// The performer this one wraps.
    var base: any RequestPerformer { get }
}

extension WrappingPerformer {
    /// Opens a WebSocket through the base performer, untouched.
    ///
    /// - Parameters:
    ///   - request: The handshake's request.
    ///   - protocols: The subprotocols to offer.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The base performer's WebSocket.
    /// - Throws: What the base performer throws.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String],
        configuration: WebSocket.Configuration
    ) async throws -> WebSocket {
        try await base.webSocket(request, protocols: protocols, configuration: configuration)
    }

    /// The request as the base performer would send it: a decorator that adds a field of its own implements this
    /// too, to add it before asking the base.
    ///
    /// - Parameter request: The request.
    /// - Returns: What the base performer's ``RequestPerformer/requestAsSent(_:)`` returns.
    public func requestAsSent(_ request: URLRequest) -> URLRequest {
        base.requestAsSent(request)
    }
}
