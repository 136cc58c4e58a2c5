import Foundation

extension SocketRequestPerformer {
    /// Opens a WebSocket: connects to the request's URL on a connection of its own (never pooled), over TLS for
    /// `wss://`, and runs the opening handshake with the request's own headers.
    ///
    /// ```swift
    /// var request = URLRequest(url: url)
    /// request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    /// let socket = try await SocketRequestPerformer().webSocket(request, protocols: ["chat.v2"])
    /// ```
    ///
    /// The connection goes as an `https://` one would for `wss://` and an `http://` one for `ws://`: the
    /// performer's ``Configuration/tls`` settings, its connect timeout, and a `CONNECT` or SOCKS5 proxy where
    /// ``Configuration/proxies`` names one for the URL; with ``Configuration/unixSocketPath``, `ws://` goes to that
    /// socket. Through an HTTP proxy, `ws://` goes through a `CONNECT` tunnel too, as `wss://` does, rather than in
    /// absolute form as an `http://` request would: the proxy then relays the WebSocket's bytes as they are, and the
    /// handshake, with the request's headers, reaches the server alone (a `Proxy-Authorization` of the request's own
    /// is not sent to it; the proxy's credentials come from its URL).
    ///
    /// - Parameters:
    ///   - request: A GET request without a body, to a `ws://` or `wss://` URL (`http://` and `https://` are taken
    ///     too).
    ///   - protocols: The subprotocols to offer, in order of preference; none by default.
    ///   - configuration: The WebSocket's limits and timers.
    /// - Returns: The open WebSocket; ``WebSocket/subprotocol`` is the server's choice.
    /// - Throws: ``SluiceError`` of the handshake stage when the server does not switch protocols as RFC 6455 asks,
    ///   or when the URL cannot carry a WebSocket here; what connecting throws otherwise; `CancellationError` when the
    ///   task is cancelled.
    public func webSocket(
        _ request: URLRequest,
        protocols: [String] = [],
        configuration: WebSocket.Configuration = WebSocket.Configuration()
    ) async throws -> WebSocket {
        guard let url = request.url, let origin = try webSocketOrigin(url) else {
            throw SluiceError(
                .handshake,
                message:
                    "cannot open a WebSocket to \(request.url?.absoluteString ?? "no URL"): \(Self.webSocketSchemeRequirement(unavailableTLS: httpsUnavailable))",
                request: request
            )
        }
        var key = [UInt8](repeating: 0, count: 16)
        var random = SystemRandomNumberGenerator()
        for index in key.indices {
            key[index] = random.next()
        }
        // The handshake is the attempt on the wire, as a request's is: the instrumentation writes its trace context
        // into it, and sees it end with the 101 or what failed it.
        var outgoing = request
        let attempt = TransportScope.beginWireAttempt(&outgoing, redirectHop: 0)
        var opening: WebSocketConnection?
        let socket: WebSocketConnection
        let agreement: WebSocketHandshake.Agreement
        do {
            let handshake = try WebSocketHandshake(
                outgoing,
                protocols: protocols,
                target: origin,
                key: key,
                offersCompression: configuration.compression && (try? ZLib.shared.get()) != nil
            )
            // A connection of its own, never pooled: the stream comes ready, and the WebSocket registers it itself.
            let (stream, loop, _) = try await pool.connector.connect(origin)
            socket = WebSocketConnection(
                stream: stream,
                loop: loop,
                request: outgoing,
                handshake: handshake,
                configuration: configuration,
                descriptors: pool.openDescriptors
            )
            opening = socket
            agreement = try await socket.open()
        } catch {
            // A refused handshake ends the attempt with the status the server answered, when it answered.
            attempt?.end(response: opening?.handshakeResponse, error: error)
            throw error
        }
        attempt?.end(response: socket.handshakeResponse, error: nil)
        return WebSocket(
            channel: socket,
            subprotocol: agreement.subprotocol,
            compressesMessages: agreement.deflate != nil,
            response: socket.handshakeResponse
        )
    }

    /// The origin of a WebSocket URL, connected to as `http://` for `ws://` and `https://` for `wss://`; `nil` for
    /// another scheme, or `wss://` where TLS is not loaded.
    private func webSocketOrigin(_ url: URL) throws(SluiceError) -> Origin? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        switch components.scheme?.lowercased() {
        case "ws", "http": components.scheme = "http"
        case "wss", "https": components.scheme = "https"
        default: return nil
        }
        guard let connected = components.url else { return nil }
        let proxy = try proxy(for: connected)
        guard
            var origin = Origin(
                connected,
                unixSocketPath: configuration.unixSocketPath,
                servesHTTPS: handlesHTTPS,
                proxy: proxy
            )
        else { return nil }
        // An HTTP proxy forwards requests in absolute form one at a time; the WebSocket needs the connection itself.
        origin.tunnelsWithoutTLS = true
        warnOfUncheckedCertificates(for: origin)
        return origin
    }

    private static func webSocketSchemeRequirement(unavailableTLS reason: String?) -> String {
        guard let reason else { return "the URL's scheme must be ws or wss" }
        return "the URL's scheme must be ws (wss needs TLS, which is not available: \(reason))"
    }
}
