import CSluiceSystem
import Foundation

/// TLS over a non-blocking socket: OpenSSL's record layer between memory buffers, the socket read and written by
/// Sluice itself.
///
/// Memory BIOs rather than `SSL_set_fd`: OpenSSL's socket BIO writes with `write`, which raises `SIGPIPE` when the
/// server has gone and takes the process down, while ``Socket/sendSome(_:)`` suppresses it; the socket keeps one set of
/// calls for both forms of stream, with the same errors; and the ciphertext waiting to be sent is visible, so that
/// back-pressure holds as on a plain socket. The cost is one copy of each record, small against its cipher.
///
/// Not thread-safe: its connection calls it under its lock, and closes it on the loop's thread once nothing else will
/// (the connection is marked closed first, under that lock). `@unchecked Sendable` for that reason.
final class TLSStream: @unchecked Sendable {
    /// What a step of the handshake needs next.
    enum HandshakeStep {
        /// It is done.
        case done
        /// Bytes from the server: wait until the socket is readable.
        case wantsReadable
        /// The socket to take bytes: wait until it is writable.
        case wantsWritable
        /// It failed, for this reason.
        case failed(SluiceError)
    }

    let openSSL: OpenSSL
    let context: TLSContext
    let socket: Socket
    let ssl: OpaquePointer
    /// Ciphertext from the socket, for OpenSSL to read.
    let networkIn: OpaquePointer
    /// Ciphertext from OpenSSL, for the socket.
    let networkOut: OpaquePointer
    /// The host the certificate must name, as the URL spells it (brackets taken from an IPv6 address).
    let host: String
    /// The origin, `host:port`, for sessions and messages.
    let origin: String
    /// Ciphertext taken from OpenSSL and not yet taken by the socket, from ``outputOffset`` on.
    var output: [UInt8] = []
    var outputOffset = 0
    /// The first bytes the server sent, to recognize a plain HTTP answer to the handshake.
    var firstBytes: [UInt8] = []
    /// Whether the handshake has finished.
    private(set) var isEstablished = false
    /// Whether the stream ended as TLS ends it, with the server's `close_notify`.
    private(set) var receivedCloseNotify = false
    /// Whether the socket ended without a `close_notify`: the stream may have been cut.
    private(set) var endedWithoutCloseNotify = false
    /// The TLS failure that ended the stream, after a read or write failed.
    private(set) var failure: String?
    /// The protocol the server chose by ALPN, `h2` or `http/1.1`; `nil` when it chose none.
    ///
    /// `h2` makes the connection an ``HTTP2Connection``, which carries several streams at once.
    var negotiatedProtocol: String?
    /// Whether `h2` was offered by ALPN, before HTTP/1.1.
    let offersHTTP2: Bool
    /// Whether the session has been kept for the origin's next connection.
    var sessionRemembered = false

    /// Prepares TLS on a socket, as a client of a host.
    ///
    /// - Parameters:
    ///   - context: The TLS context.
    ///   - socket: The connected socket.
    ///   - host: The host name or address the certificate must hold.
    ///   - port: The port, for the session kept per origin.
    ///   - offersHTTP2: Whether to offer `h2` by ALPN before HTTP/1.1, rather than HTTP/1.1 alone.
    /// - Throws: ``SluiceError`` when OpenSSL could not make its objects or refused the host name.
    init(context: TLSContext, socket: Socket, host: String, port: Int, offersHTTP2: Bool = false) throws(SluiceError) {
        let openSSL = context.openSSL
        self.offersHTTP2 = offersHTTP2
        self.openSSL = openSSL
        self.context = context
        self.socket = socket
        let host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.host = host
        self.origin = SocketAddress.authority(host: host, port: port)
        openSSL.errClearError()
        guard let ssl = context.makeSSL() else {
            throw Self.setupError("SSL_new failed", openSSL)
        }
        guard let networkIn = openSSL.bioNew(openSSL.bioSMem()) else {
            context.freeSSL(ssl)
            throw Self.setupError("BIO_new failed", openSSL)
        }
        guard let networkOut = openSSL.bioNew(openSSL.bioSMem()) else {
            _ = openSSL.bioFree(networkIn)
            context.freeSSL(ssl)
            throw Self.setupError("BIO_new failed", openSSL)
        }
        // From here the SSL owns both BIOs and frees them with itself.
        openSSL.setBIO(ssl, networkIn, networkOut)
        openSSL.setConnectState(ssl)
        // Set up before the stream owns the SSL: a failure frees it here, and the stream's deinit never runs.
        do throws(SluiceError) {
            try Self.expect(host, on: ssl, openSSL)
            // The context offers HTTP/1.1 alone; a connection that may speak HTTP/2 offers it first.
            if offersHTTP2 {
                let set = TLSContext.alpnProtocolsWithHTTP2.withUnsafeBufferPointer {
                    openSSL.setALPNProtocols(ssl, $0.baseAddress, UInt32($0.count)) == 0
                }
                guard set else { throw Self.setupError("SSL_set_alpn_protos failed", openSSL) }
            }
        } catch {
            context.freeSSL(ssl)
            throw error
        }
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        context.resumeSession(of: origin, on: ssl)
    }

    deinit {
        context.freeSSL(ssl)
    }

    /// Sets the name or address the certificate must hold, and for a name, the SNI extension.
    ///
    /// - Throws: ``SluiceError`` when OpenSSL refused it.
    static func expect(_ host: String, on ssl: OpaquePointer, _ openSSL: OpenSSL) throws(SluiceError) {
        if let address = ipAddressBytes(host) {
            // An IP address is checked against the certificate's IP addresses, and is never sent as the SNI name.
            let accepted = address.withUnsafeBufferPointer {
                openSSL.verifyParamSet1IP(openSSL.get0Param(ssl), $0.baseAddress, $0.count) == 1
            }
            guard accepted else {
                throw setupError("the IP address \(host) was refused for verification", openSSL)
            }
        } else {
            let accepted = host.withCString { name in
                openSSL.set1Host(ssl, name) == 1
                    && openSSL.control(
                        ssl,
                        Int32(SLUICE_SSL_CTRL_SET_TLSEXT_HOSTNAME),
                        Int(SLUICE_TLSEXT_NAMETYPE_HOST_NAME),
                        UnsafeMutableRawPointer(mutating: name)
                    ) == 1
            }
            guard accepted else {
                throw setupError("the host name \(host) was refused for verification", openSSL)
            }
        }
    }

    /// The bytes of an IP address literal, 4 or 16, or `nil` for a host name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        SocketAddress.numeric(host: host, port: 0)?.ipBytes
    }

    static func setupError(_ what: String, _ openSSL: OpenSSL) -> SluiceError {
        let reasons = openSSL.drainErrors()
        return SluiceError(
            .transport,
            message: "TLS could not be set up: \(what)"
                + (reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")),
            underlyingError: URLError(.secureConnectionFailed)
        )
    }

    // MARK: Handshake

    /// Takes the handshake as far as the socket allows.
    func handshake() -> HandshakeStep {
        while true {
            switch flush() {
            case .wouldBlock: return .wantsWritable
            case .failed(let code): return .failed(handshakeError(socketError: SocketError("send", errno: code)))
            default: break
            }
            openSSL.errClearError()
            let result = openSSL.doHandshake(ssl)
            if result == 1 {
                // The last flight (the client's Finished) may still wait for the socket.
                switch flush() {
                case .wouldBlock: return .wantsWritable
                case .failed(let code): return .failed(handshakeError(socketError: SocketError("send", errno: code)))
                default: break
                }
                isEstablished = true
                if let failure = checkAfterHandshake() {
                    return .failed(failure)
                }
                return .done
            }
            switch openSSL.getError(ssl, result) {
            case Int32(SLUICE_SSL_ERROR_WANT_READ), Int32(SLUICE_SSL_ERROR_WANT_WRITE):
                switch flush() {
                case .wouldBlock: return .wantsWritable
                case .failed(let code): return .failed(handshakeError(socketError: SocketError("send", errno: code)))
                default: break
                }
                guard openSSL.bioPending(networkOut) == 0 else { continue }
                switch fill() {
                case .transferred: continue
                case .wouldBlock: return .wantsReadable
                case .endOfStream: return .failed(handshakeError(closed: true))
                case .failed(let code):
                    return .failed(handshakeError(socketError: SocketError("recv", errno: code)))
                }
            default:
                return .failed(handshakeError())
            }
        }
    }

    // MARK: Records

    /// Reads plaintext: what OpenSSL holds decrypted, else what it can decrypt from the socket.
    ///
    /// - Parameter buffer: Where to put the plaintext.
    /// - Returns: As ``Socket/receive(into:)``: `.endOfStream` on `close_notify`, and on the socket's end without one
    ///   (see ``endedWithoutCloseNotify``); `.failed` with ``failure`` set when TLS failed.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> SocketIOResult {
        let count = Int32(clamping: buffer.count)
        while true {
            openSSL.errClearError()
            let result = openSSL.read(ssl, buffer.baseAddress, count)
            if result > 0 {
                rememberSessionOnce()
                return .transferred(Int(result))
            }
            switch openSSL.getError(ssl, result) {
            case Int32(SLUICE_SSL_ERROR_WANT_READ), Int32(SLUICE_SSL_ERROR_WANT_WRITE):
                // A read may have queued records to send: a key update's answer.
                if case .failed(let code) = flush() {
                    return .failed(code)
                }
                switch fill() {
                case .transferred: continue
                case .endOfStream:
                    endedWithoutCloseNotify = true
                    return .endOfStream
                case let other: return other
                }
            case Int32(SLUICE_SSL_ERROR_ZERO_RETURN):
                receivedCloseNotify = true
                return .endOfStream
            default:
                let reasons = openSSL.drainErrors()
                failure = reasons.isEmpty ? "TLS failed" : "TLS failed: " + reasons.joined(separator: "; ")
                return .failed(EPROTO)
            }
        }
    }

    /// Encrypts as much plaintext as the socket takes: nothing while earlier records wait for it.
    ///
    /// - Parameter buffer: The plaintext; not empty.
    /// - Returns: As ``Socket/sendSome(_:)``. Records encrypted may still wait for the socket: see ``flush()``.
    func sendSome(_ buffer: UnsafeRawBufferPointer) -> SocketIOResult {
        switch flush() {
        case .transferred, .endOfStream: break
        case let other: return other
        }
        openSSL.errClearError()
        // One record at most, so that a slow socket holds no more than that encrypted ahead of it.
        let result = openSSL.write(ssl, buffer.baseAddress, Int32(min(buffer.count, 16 << 10)))
        guard result > 0 else {
            let reasons = openSSL.drainErrors()
            failure = reasons.isEmpty ? "TLS failed" : "TLS failed: " + reasons.joined(separator: "; ")
            return .failed(EPROTO)
        }
        if case .failed(let code) = flush() {
            return .failed(code)
        }
        return .transferred(Int(result))
    }

    /// Sends the records OpenSSL has made, as far as the socket takes them.
    ///
    /// - Returns: `.transferred` (or `.endOfStream`) when none waits any more, `.wouldBlock` when some wait for the
    ///   socket to be writable, `.failed` when the socket failed.
    func flush() -> SocketIOResult {
        while outputOffset < output.count {
            let result = output.withUnsafeBytes { bytes in
                socket.sendSome(UnsafeRawBufferPointer(rebasing: bytes[outputOffset...]))
            }
            switch result {
            case .transferred(let count): outputOffset += count
            case .endOfStream: return .failed(EPIPE)
            case let other: return other
            }
        }
        while openSSL.bioPending(networkOut) > 0 {
            // Records go from OpenSSL to the socket through the stack; only what the socket does not take at once is
            // kept, in `output`, whose storage is reused.
            let result = withUnsafeTemporaryAllocation(byteCount: Self.recordBufferSize, alignment: 16) { buffer in
                let read = Int(openSSL.bioRead(networkOut, buffer.baseAddress, Int32(buffer.count)))
                guard read > 0 else { return SocketIOResult.endOfStream }
                var sent = 0
                while sent < read {
                    switch socket.sendSome(UnsafeRawBufferPointer(rebasing: buffer[sent..<read])) {
                    case .transferred(let count):
                        sent += count
                    case .wouldBlock:
                        output.removeAll(keepingCapacity: true)
                        output.append(contentsOf: buffer[sent..<read])
                        outputOffset = 0
                        return .wouldBlock
                    case .endOfStream:
                        return .failed(EPIPE)
                    case let other:
                        return other
                    }
                }
                return .transferred(sent)
            }
            switch result {
            case .transferred: continue
            case .endOfStream: return .endOfStream
            case let other: return other
            }
        }
        return .endOfStream
    }

    /// The bytes moved between OpenSSL and the socket at a time: a whole record and its overhead.
    static let recordBufferSize = 17 << 10

    /// Whether records wait to be sent.
    var hasPendingOutput: Bool { outputOffset < output.count || openSSL.bioPending(networkOut) > 0 }

    /// Whether plaintext, or ciphertext not yet decrypted, waits inside TLS while the socket may be quiet.
    var hasBufferedInput: Bool { openSSL.pending(ssl) > 0 || openSSL.bioPending(networkIn) > 0 }

    /// The ciphertext read from the socket at a time: a few records, so that a large body costs a read a few records
    /// rather than one each, while what waits inside TLS stays bounded by it.
    static let fillBufferSize = 64 << 10

    /// Reads ciphertext from the socket into OpenSSL, ``fillBufferSize`` at most.
    func fill() -> SocketIOResult {
        withUnsafeTemporaryAllocation(byteCount: Self.fillBufferSize, alignment: 16) { buffer in
            let result = socket.receive(into: buffer)
            guard case .transferred(let count) = result else { return result }
            if !isEstablished && firstBytes.count < 5 {
                firstBytes.append(contentsOf: buffer[0..<min(count, 5 - firstBytes.count)])
            }
            let written = openSSL.bioWrite(networkIn, buffer.baseAddress, Int32(count))
            return written == Int32(count) ? result : .failed(ENOMEM)
        }
    }

    /// Keeps the session for the origin's next connection once records flow: TLS 1.3 sends its tickets after the
    /// handshake, before the first response.
    func rememberSessionOnce() {
        guard !sessionRemembered else { return }
        sessionRemembered = true
        context.rememberSession(of: origin, from: ssl)
    }

    /// Whether this connection resumed an earlier session.
    var resumedSession: Bool { openSSL.sessionReused(ssl) == 1 }

    /// Sends `close_notify`, as far as the socket takes it at once: the connection is closing either way.
    func shutdown() {
        guard isEstablished, failure == nil else { return }
        openSSL.errClearError()
        _ = openSSL.shutdown(ssl)
        _ = flush()
        openSSL.errClearError()
    }
}
