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

    private let openSSL: OpenSSL
    private let context: TLSContext
    private let socket: Socket
    private let ssl: OpaquePointer
    /// Ciphertext from the socket, for OpenSSL to read.
    private let networkIn: OpaquePointer
    /// Ciphertext from OpenSSL, for the socket.
    private let networkOut: OpaquePointer
    /// The host the certificate must name, as the URL spells it (brackets taken from an IPv6 address).
    let host: String
    /// The origin, `host:port`, for sessions and messages.
    let origin: String
    /// Ciphertext taken from OpenSSL and not yet taken by the socket, from ``outputOffset`` on.
    private var output: [UInt8] = []
    private var outputOffset = 0
    /// The first bytes the server sent, to recognize a plain HTTP answer to the handshake.
    private var firstBytes: [UInt8] = []
    /// Whether the handshake has finished.
    private(set) var isEstablished = false
    /// Whether the stream ended as TLS ends it, with the server's `close_notify`.
    private(set) var receivedCloseNotify = false
    /// Whether the socket ended without a `close_notify`: the stream may have been cut.
    private(set) var endedWithoutCloseNotify = false
    /// The TLS failure that ended the stream, after a read or write failed.
    private(set) var failure: String?
    /// The protocol the server chose by ALPN, such as `http/1.1`; `nil` when it chose none.
    ///
    /// HTTP/2, when it comes, is chosen by it: a connection that carries several streams at once.
    private(set) var negotiatedProtocol: String?
    /// Whether the session has been kept for the origin's next connection.
    private var sessionRemembered = false

    /// Prepares TLS on a socket, as a client of a host.
    ///
    /// - Throws: ``SluiceError`` when OpenSSL could not make its objects or refused the host name.
    init(context: TLSContext, socket: Socket, host: String, port: Int) throws(SluiceError) {
        let openSSL = context.openSSL
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
    private static func expect(_ host: String, on ssl: OpaquePointer, _ openSSL: OpenSSL) throws(SluiceError) {
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
    private static func ipAddressBytes(_ host: String) -> [UInt8]? {
        SocketAddress.numeric(host: host, port: 0)?.ipBytes
    }

    private static func setupError(_ what: String, _ openSSL: OpenSSL) -> SluiceError {
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

    /// What the configuration asks beyond OpenSSL's checks: a pinned key in the chain, and HTTP/1.1 if the server
    /// chose a protocol.
    private func checkAfterHandshake() -> SluiceError? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        openSSL.get0ALPNSelected(ssl, &data, &length)
        if let data, length > 0 {
            let selected = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
            negotiatedProtocol = selected
            guard selected == "http/1.1" else {
                return Self.failure(
                    "the server \(origin) chose the protocol \(selected) by ALPN, which was not offered",
                    .secureConnectionFailed
                )
            }
        }
        guard !context.pins.isEmpty else { return nil }
        let seen = publicKeyDigests()
        guard seen.contains(where: context.pins.contains) else {
            let seenList = seen.map { $0.base64EncodedString() }.joined(separator: ", ")
            let expected = context.configuration.pinnedPublicKeys.joined(separator: ", ")
            return Self.failure(
                "the certificate chain of \(origin) holds none of the pinned public keys: it holds \(seenList.isEmpty ? "no key" : seenList); pinned: \(expected)",
                .serverCertificateUntrusted
            )
        }
        return nil
    }

    /// The SHA-256 digests of the public keys (SubjectPublicKeyInfo, DER) of the verified chain, the server's
    /// first; of the server's certificate alone when verification is off.
    private func publicKeyDigests() -> [Data] {
        var certificates: [OpaquePointer] = []
        var owned: OpaquePointer?
        if let chain = openSSL.get0VerifiedChain(ssl) {
            for index in 0..<openSSL.stackCount(chain) {
                if let certificate = openSSL.stackValue(chain, index) {
                    certificates.append(OpaquePointer(certificate))
                }
            }
        }
        if certificates.isEmpty, let peer = openSSL.get1PeerCertificate(ssl) {
            owned = peer
            certificates = [peer]
        }
        defer { owned.map { openSSL.x509Free($0) } }
        return certificates.compactMap { certificate in
            guard let key = openSSL.x509GetPublicKey(certificate) else { return nil }
            let length = openSSL.i2dPublicKey(key, nil)
            guard length > 0 else { return nil }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return openSSL.i2dPublicKey(key, &cursor)
            }
            guard written == length else { return nil }
            var digest = [UInt8](repeating: 0, count: 32)
            _ = openSSL.sha256(der, der.count, &digest)
            return Data(digest)
        }
    }

    /// The DNS names and IP addresses the server's certificate holds, for a name mismatch; `nil` when the certificate
    /// is not at hand.
    ///
    /// The certificate is read from the chain as the server sent it: OpenSSL keeps the peer's certificate as such only
    /// once it has been verified. OpenSSL 1.1.1 keeps not even the chain of a handshake that failed verification.
    private func certificateNames() -> [String]? {
        guard let chain = openSSL.getPeerCertChain(ssl), openSSL.stackCount(chain) > 0,
            let first = openSSL.stackValue(chain, 0)
        else { return nil }
        let peer = OpaquePointer(first)
        guard let names = openSSL.x509GetExtension(peer, Int32(SLUICE_NID_SUBJECT_ALT_NAME), nil, nil) else {
            return []
        }
        let stack = OpaquePointer(names)
        defer { openSSL.generalNamesFree(stack) }
        var result: [String] = []
        for index in 0..<min(openSSL.stackCount(stack), 32) {
            guard let raw = openSSL.stackValue(stack, index) else { continue }
            let name = raw.assumingMemoryBound(to: SluiceGeneralName.self).pointee
            guard let value = name.value, let bytes = openSSL.asn1StringData(value) else { continue }
            let data = UnsafeBufferPointer(start: bytes, count: Int(max(0, openSSL.asn1StringLength(value))))
            switch name.type {
            case Int32(SLUICE_GEN_DNS):
                // The server's own bytes: shown with any control character escaped, as the error quotes them.
                result.append(ResponseParser.printable(String(decoding: data, as: UTF8.self)))
            case Int32(SLUICE_GEN_IPADD) where data.count == 4:
                result.append(data.map(String.init).joined(separator: "."))
            case Int32(SLUICE_GEN_IPADD) where data.count == 16:
                result.append(
                    stride(from: 0, to: 16, by: 2).map {
                        String(UInt16(data[$0]) << 8 | UInt16(data[$0 + 1]), radix: 16)
                    }
                    .joined(separator: ":")
                )
            default:
                break
            }
        }
        return result
    }

    /// The error of a failed handshake, naming what failed.
    private func handshakeError(closed: Bool = false, socketError: SocketError? = nil) -> SluiceError {
        let reasons = openSSL.drainErrors()
        if firstBytes.starts(with: Array("HTTP/".utf8)) {
            return Self.failure(
                "the server \(origin) answered the TLS handshake in plain HTTP: it serves http://, not https://, on this port",
                .secureConnectionFailed
            )
        }
        let verifyResult = openSSL.getVerifyResult(ssl)
        if verifyResult != 0 && !context.configuration.insecurelySkippingVerification {
            return certificateError(verifyResult)
        }
        let detail = reasons.isEmpty ? "" : " (\(reasons.joined(separator: "; ")))"
        let joined = reasons.joined(separator: " ")
        if joined.contains("protocol version") || joined.contains("unsupported protocol")
            || joined.contains("no protocols available")
        {
            return Self.failure(
                "the server \(origin) and the client share no TLS version (the client accepts \(context.configuration.minimumVersion) and later)\(detail)",
                .secureConnectionFailed
            )
        }
        if joined.contains("no shared cipher") || joined.contains("handshake failure") {
            return Self.failure(
                "the server \(origin) refused the TLS handshake: no shared cipher or parameters\(detail)",
                .secureConnectionFailed
            )
        }
        if let socketError {
            return Self.failure(
                "the TLS handshake with \(origin) failed: \(socketError)\(detail)",
                .secureConnectionFailed
            )
        }
        if closed || reasons.isEmpty {
            return Self.failure(
                "the server \(origin) closed the connection during the TLS handshake\(detail)",
                .secureConnectionFailed
            )
        }
        return Self.failure("the TLS handshake with \(origin) failed\(detail)", .secureConnectionFailed)
    }

    /// The error of a certificate OpenSSL did not accept, from its verification result.
    private func certificateError(_ code: Int) -> SluiceError {
        let reason = openSSL.verifyCertErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        let openSSLWords = " (\(reason), X509 error \(code))"
        switch code {
        case 2, 20, 21:
            return Self.failure(
                "the certificate of \(origin) is signed by an unknown authority, not one this client trusts\(openSSLWords)",
                .serverCertificateHasUnknownRoot
            )
        case 18, 19:
            return Self.failure(
                "the certificate of \(origin) is self-signed, and not one this client trusts\(openSSLWords)",
                .serverCertificateUntrusted
            )
        case 10:
            return Self.failure("the certificate of \(origin) has expired\(openSSLWords)", .serverCertificateHasBadDate)
        case 9:
            return Self.failure(
                "the certificate of \(origin) is not yet valid\(openSSLWords)",
                .serverCertificateNotYetValid
            )
        case 62, 64:
            let held = certificateNames().map { names in
                "for \(names.isEmpty ? "no name" : names.joined(separator: ", ")), not"
            }
            return Self.failure(
                "the certificate of \(origin) is \(held ?? "not") for \(host)\(openSSLWords)",
                .serverCertificateUntrusted
            )
        default:
            return Self.failure(
                "the certificate of \(origin) was not accepted\(openSSLWords)",
                .serverCertificateUntrusted
            )
        }
    }

    private static func failure(_ message: String, _ code: URLError.Code) -> SluiceError {
        SluiceError(.transport, message: message, underlyingError: URLError(code))
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
    private static let recordBufferSize = 17 << 10

    /// Whether records wait to be sent.
    var hasPendingOutput: Bool { outputOffset < output.count || openSSL.bioPending(networkOut) > 0 }

    /// Whether plaintext, or ciphertext not yet decrypted, waits inside TLS while the socket may be quiet.
    var hasBufferedInput: Bool { openSSL.pending(ssl) > 0 || openSSL.bioPending(networkIn) > 0 }

    /// The ciphertext read from the socket at a time: a few records, so that a large body costs a read a few records
    /// rather than one each, while what waits inside TLS stays bounded by it.
    private static let fillBufferSize = 64 << 10

    /// Reads ciphertext from the socket into OpenSSL, ``fillBufferSize`` at most.
    private func fill() -> SocketIOResult {
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
    private func rememberSessionOnce() {
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
