import Foundation

/// The exchange that opens a tunnel through a proxy to an origin, before anything of the origin's protocol.
///
/// An HTTP `CONNECT`, or SOCKS5's greeting, authentication (RFC 1929) and connect request (RFC 1928). I/O-free: the
/// connection sends ``takeOutput()`` and hands over what arrives to ``receive(_:)`` until ``isDone``.
///
/// Every byte from the proxy is taken as hostile: a reply is read to its end and no further, within a bound (the
/// head limits for `CONNECT`, the size the protocol gives for SOCKS5), and anything it sends that was not asked for
/// fails the handshake with a message naming the proxy and what it answered.
struct ProxyHandshake {
    /// Where the tunnel goes.
    enum Target {
        /// A host name, for the proxy to resolve.
        case name(String, port: Int)
        /// An address resolved here.
        case address(SocketAddress)
    }

    private enum State {
        case connectReply(ResponseParser)
        case socksMethod
        case socksAuthentication
        case socksReplyHead
        case socksReplyAddress(length: Int)
        case done
    }

    private let proxy: Proxy
    /// The origin as messages name it, `example.com:443`.
    private let origin: String
    private let target: Target
    private var state: State
    private var output: [UInt8]
    /// Reply bytes read and not yet taken whole.
    private var input: [UInt8] = []

    /// Starts a handshake.
    ///
    /// - Parameters:
    ///   - proxy: The proxy: an HTTP proxy (a `CONNECT` tunnel) or a SOCKS5 one.
    ///   - target: Where the tunnel goes.
    ///   - limits: The bounds of a `CONNECT` reply's head.
    /// - Throws: ``SluiceError`` when the request cannot be stated: a SOCKS5 host name, user name or password longer
    ///   than 255 bytes.
    init(proxy: Proxy, target: Target, limits: HeadLimits) throws(SluiceError) {
        self.proxy = proxy
        self.target = target
        switch target {
        case .name(let host, let port):
            origin = SocketAddress.authority(host: host, port: port)
        case .address(let address):
            origin = address.description
        }
        if proxy.kind.isSOCKS {
            for (value, what) in [(proxy.username, "user name"), (proxy.password, "password")] {
                guard (value?.utf8.count ?? 0) <= 255 else {
                    throw SluiceError(
                        .transport,
                        message: "the \(what) for the SOCKS5 proxy \(proxy) is longer than the 255 bytes SOCKS5 takes"
                    )
                }
            }
            // No authentication, and user name and password when there are credentials.
            output = proxy.hasCredentials ? [5, 2, 0, 2] : [5, 1, 0]
            state = .socksMethod
        } else {
            var head = "CONNECT \(origin) HTTP/1.1\r\nHost: \(origin)\r\n"
            if let authorization = proxy.basicAuthorization {
                head += "Proxy-Authorization: \(authorization)\r\n"
            }
            head += "\r\n"
            output = Array(head.utf8)
            // Read as the reply to a HEAD is: a head and no body, whatever its fields say.
            state = .connectReply(ResponseParser(limits: limits, isHeadRequest: true))
        }
        if case .name(let host, _) = target, proxy.kind.isSOCKS, host.utf8.count > 255 {
            throw SluiceError(
                .transport,
                message: "the host name \(host) is longer than the 255 bytes the SOCKS5 proxy \(proxy) takes"
            )
        }
    }

    /// Whether the tunnel is open.
    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// The bytes to send now, taken.
    mutating func takeOutput() -> [UInt8] {
        defer { output = [] }
        return output
    }

    /// Takes bytes from the proxy.
    ///
    /// - Parameter bytes: What arrived.
    /// - Throws: ``SluiceError`` naming the proxy and what it answered, when it refused the tunnel or broke its
    ///   protocol.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        guard !bytes.isEmpty else { return }
        if case .connectReply(var parser) = state {
            try receiveConnectReply(bytes, &parser)
            return
        }
        guard !isDone else { throw unasked(bytes.count) }
        input.append(contentsOf: bytes)
        while try stepSOCKS() {}
    }

    /// Whether the end of the stream is an error now: always, before the tunnel is open.
    ///
    /// - Returns: The error naming how far the handshake had come.
    func closedEarly() -> SluiceError {
        SluiceError(
            .transport,
            message:
                "the proxy \(proxy) closed the connection before it opened the tunnel to \(origin)\(input.isEmpty ? "" : ", after \(input.count) bytes of its reply")",
            underlyingError: URLError(.networkConnectionLost)
        )
    }

    // MARK: CONNECT

    private mutating func receiveConnectReply(
        _ bytes: UnsafeRawBufferPointer,
        _ parser: inout ResponseParser
    ) throws(SluiceError) {
        var head: ParsedHead?
        let consumed: Int
        do {
            consumed = try parser.parse(bytes) { event in
                if case .head(let parsed) = event {
                    head = parsed
                }
            }
        } catch {
            let reason = (error as? ResponseProtocolError)?.message ?? "\(error)"
            throw failure("answered CONNECT with what is not an HTTP/1.1 reply: \(reason)", code: .badServerResponse)
        }
        state = .connectReply(parser)
        guard let head else { return }
        switch head.status {
        case 200..<300:
            state = .done
            guard consumed == bytes.count else { throw unasked(bytes.count - consumed) }
        case 407:
            let sent = proxy.hasCredentials ? "refused the user name and password from its URL" : "asks for them"
            throw failure(
                "requires authentication (407 Proxy Authentication Required): it \(sent)",
                code: .userAuthenticationRequired
            )
        default:
            throw failure(
                "refused to CONNECT to \(origin): \(HTTPStatus(code: head.status))",
                code: .cannotConnectToHost
            )
        }
    }

    // MARK: SOCKS5

    /// Takes one whole message from ``input`` if it holds one.
    ///
    /// - Returns: Whether a message was taken, and another may follow.
    private mutating func stepSOCKS() throws(SluiceError) -> Bool {
        switch state {
        case .socksMethod:
            guard input.count >= 2 else { return false }
            let (version, method) = (input[0], input[1])
            input.removeFirst(2)
            try checkVersion(version)
            switch method {
            case 0:
                output = connectRequest()
                state = .socksReplyHead
            case 2 where proxy.hasCredentials:
                let user = Array((proxy.username ?? "").utf8)
                let password = Array((proxy.password ?? "").utf8)
                output = [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
                state = .socksAuthentication
            case 0xFF:
                let offered = proxy.hasCredentials ? "no authentication, user name and password" : "no authentication"
                throw failure(
                    "accepts none of the authentication methods offered (\(offered))",
                    code: .userAuthenticationRequired
                )
            default:
                throw failure(
                    "chose the authentication method \(Self.hex(method)), which was not offered",
                    code: .badServerResponse
                )
            }
        case .socksAuthentication:
            guard input.count >= 2 else { return false }
            let (version, status) = (input[0], input[1])
            input.removeFirst(2)
            guard version == 1 else {
                throw failure(
                    "answered the user name and password with the version byte \(Self.hex(version)), not 0x01",
                    code: .badServerResponse
                )
            }
            guard status == 0 else {
                throw failure(
                    "refused the user name and password from its URL (status \(Self.hex(status)))",
                    code: .userAuthenticationRequired
                )
            }
            output = connectRequest()
            state = .socksReplyHead
        case .socksReplyHead:
            guard input.count >= 5 else { return false }
            try checkVersion(input[0])
            guard input[1] == 0 else {
                throw failure(
                    "refused to connect to \(origin): \(Self.socksReply(input[1]))",
                    code: .cannotConnectToHost
                )
            }
            let length: Int
            switch input[3] {
            case 1: length = 4 + 2
            case 4: length = 16 + 2
            case 3: length = 1 + Int(input[4]) + 2
            default:
                throw failure(
                    "answered with the address type \(Self.hex(input[3])), which is none of SOCKS5's",
                    code: .badServerResponse
                )
            }
            input.removeFirst(4)
            state = .socksReplyAddress(length: length)
        case .socksReplyAddress(let length):
            guard input.count >= length else { return false }
            input.removeFirst(length)
            state = .done
            guard input.isEmpty else { throw unasked(input.count) }
            return false
        case .connectReply, .done:
            return false
        }
        return true
    }

    private func checkVersion(_ version: UInt8) throws(SluiceError) {
        guard version == 5 else {
            throw failure(
                "answered with the version byte \(Self.hex(version)), not 0x05: it does not speak SOCKS5",
                code: .badServerResponse
            )
        }
    }

    /// The SOCKS5 request to connect to the target.
    private func connectRequest() -> [UInt8] {
        var request: [UInt8] = [5, 1, 0]
        let port: Int
        switch target {
        case .name(let host, let number):
            if let address = SocketAddress.numeric(host: host, port: number)?.ipBytes {
                request += [address.count == 4 ? 1 : 4] + address
            } else {
                let name = Array(host.utf8)
                request += [3, UInt8(name.count)] + name
            }
            port = number
        case .address(let address):
            let bytes = address.ipBytes ?? []
            request += [bytes.count == 4 ? 1 : 4] + bytes
            port = address.port
        }
        return request + [UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)]
    }

    /// The meaning of a SOCKS5 reply code.
    static func socksReply(_ code: UInt8) -> String {
        let meaning =
            switch code {
            case 1: "general SOCKS server failure"
            case 2: "connection not allowed by ruleset"
            case 3: "network unreachable"
            case 4: "host unreachable"
            case 5: "connection refused"
            case 6: "TTL expired"
            case 7: "command not supported"
            case 8: "address type not supported"
            default: "an unassigned reply code"
            }
        return "\(meaning) (reply \(hex(code)))"
    }

    // MARK: Errors

    private func failure(_ what: String, code: URLError.Code) -> SluiceError {
        SluiceError(.transport, message: "the proxy \(proxy) \(what)", underlyingError: URLError(code))
    }

    private func unasked(_ count: Int) -> SluiceError {
        failure(
            "sent \(count) bytes after its reply, before the request to \(origin): nothing asked for them",
            code: .badServerResponse
        )
    }

    private static func hex(_ byte: UInt8) -> String {
        "0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
}
