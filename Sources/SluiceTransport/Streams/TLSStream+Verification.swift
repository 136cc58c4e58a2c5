import CSluiceSystem
import Foundation

extension TLSStream {
    /// What the configuration asks beyond OpenSSL's checks: a pinned key in the chain, and a protocol offered if the
    /// server chose one.
    func checkAfterHandshake() -> SluiceError? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        openSSL.get0ALPNSelected(ssl, &data, &length)
        if let data, length > 0 {
            let selected = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
            negotiatedProtocol = selected
            guard selected == "http/1.1" || (offersHTTP2 && selected == "h2") else {
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
    func publicKeyDigests() -> [Data] {
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
    func certificateNames() -> [String]? {
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
    func handshakeError(closed: Bool = false, socketError: SocketError? = nil) -> SluiceError {
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
    func certificateError(_ code: Int) -> SluiceError {
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

    static func failure(_ message: String, _ code: URLError.Code) -> SluiceError {
        SluiceError(.transport, message: message, underlyingError: URLError(code))
    }
}
