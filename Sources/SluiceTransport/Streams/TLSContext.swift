import CSluiceSystem
import Foundation

/// A performer's TLS settings put in place once: an OpenSSL context (`SSL_CTX`) with its trust store, client
/// identity, minimum version, ALPN and options, the pins to check, and the sessions to resume, per origin.
///
/// `@unchecked Sendable`: the context is configured in `init` and only read afterwards (OpenSSL allows sharing a
/// configured `SSL_CTX` between threads); the sessions are behind a lock.
final class TLSContext: @unchecked Sendable {
    /// The library.
    let openSSL: OpenSSL
    /// The configuration it was made from.
    let configuration: TLSConfiguration
    /// The pins, decoded; empty for no pinning.
    let pins: Set<Data>
    private let context: OpaquePointer
    /// The last resumable session of each origin (`host:port`), owned here: freed when replaced.
    private let sessions = Locked<[String: OpaquePointer]>([:])

    /// The ALPN protocol list offered by default: HTTP/1.1 alone, in the wire form of length-prefixed names.
    static let alpnProtocols: [UInt8] = [8] + Array("http/1.1".utf8)

    /// The ALPN protocol list a connection that may speak HTTP/2 offers: `h2`, then HTTP/1.1.
    static let alpnProtocolsWithHTTP2: [UInt8] = [2] + Array("h2".utf8) + alpnProtocols

    /// Sets up a context.
    ///
    /// - Throws: ``TLSSetupError`` naming what could not be put in place.
    init(openSSL: OpenSSL, configuration: TLSConfiguration) throws {
        self.openSSL = openSSL
        self.configuration = configuration
        var pins = Set<Data>()
        for pin in configuration.pinnedPublicKeys {
            guard let digest = Data(base64Encoded: pin), digest.count == 32 else {
                throw TLSSetupError("the pin \(pin) is not the base64 form of a SHA-256 digest")
            }
            pins.insert(digest)
        }
        self.pins = pins
        openSSL.errClearError()
        guard let context = openSSL.contextNew(openSSL.tlsClientMethod()) else {
            throw TLSSetupError("SSL_CTX_new failed: \(openSSL.drainErrors().joined(separator: "; "))")
        }
        // Configured before this object owns it: a failure frees it here, and deinit never runs.
        do {
            try ContextSetup(openSSL: openSSL, context: context, configuration: configuration).configure()
        } catch {
            openSSL.contextFree(context)
            throw error
        }
        self.context = context
    }

    deinit {
        for session in sessions.withLock({ $0.values }) {
            openSSL.sessionFree(session)
        }
        openSSL.contextFree(context)
    }

    /// The `SSL` objects made by ``makeSSL()`` and not yet freed by ``freeSSL(_:)``: one a TLS connection, so that a
    /// test can count them after thousands of connections and see none leak.
    let liveSSLObjects = Gauge()

    /// A new `SSL` for one connection; the caller frees it with ``freeSSL(_:)``.
    func makeSSL() -> OpaquePointer? {
        let ssl = openSSL.sslNew(context)
        if ssl != nil {
            liveSSLObjects.add(1)
        }
        return ssl
    }

    /// Frees an `SSL` that ``makeSSL()`` made, and the memory BIOs it owns.
    func freeSSL(_ ssl: OpaquePointer) {
        openSSL.sslFree(ssl)
        liveSSLObjects.add(-1)
    }

    // MARK: Sessions

    /// The sessions in OpenSSL's own store of the context, which holds none: the sessions to resume are kept here.
    var sessionsStoredByOpenSSL: Int {
        openSSL.contextControl(context, Int32(SLUICE_SSL_CTRL_SESS_NUMBER), 0, nil)
    }

    /// Sets the origin's last session on a connection about to shake hands, so that it is resumed if the server
    /// still knows it.
    func resumeSession(of origin: String, on ssl: OpaquePointer) {
        sessions.withLock { sessions in
            if let session = sessions[origin] {
                _ = openSSL.setSession(ssl, session)
            }
        }
    }

    /// Keeps a connection's session for the origin's next connection, if it can be resumed.
    func rememberSession(of origin: String, from ssl: OpaquePointer) {
        guard let session = openSSL.get1Session(ssl) else { return }
        guard openSSL.sessionIsResumable(session) == 1 else {
            openSSL.sessionFree(session)
            return
        }
        let replaced = sessions.withLock { sessions in
            defer { sessions[origin] = session }
            return sessions[origin]
        }
        if let replaced {
            openSSL.sessionFree(replaced)
        }
    }
}

/// Puts a configuration in place on an OpenSSL context that is not yet anyone's.
private struct ContextSetup {
    let openSSL: OpenSSL
    let context: OpaquePointer
    let configuration: TLSConfiguration

    func configure() throws {
        let configuration = self.configuration
        if configuration.trustsSystemRoots {
            // Honours SSL_CERT_FILE and SSL_CERT_DIR, else the paths OpenSSL was built with.
            guard openSSL.contextSetDefaultVerifyPaths(context) == 1 else {
                throw TLSSetupError("the system's trust store could not be loaded: \(errors())")
            }
        }
        if !configuration.additionalTrustRoots.isEmpty {
            guard let store = openSSL.contextGetCertStore(context) else {
                throw TLSSetupError("the context has no certificate store")
            }
            for root in configuration.additionalTrustRoots {
                let certificates = try readCertificates(root)
                defer { free(certificates) }
                for certificate in certificates where openSSL.storeAddCert(store, certificate) != 1 {
                    throw TLSSetupError("a trust root of \(root.origin) could not be added: \(errors())")
                }
            }
        }
        let verify = configuration.insecurelySkippingVerification ? SLUICE_SSL_VERIFY_NONE : SLUICE_SSL_VERIFY_PEER
        openSSL.contextSetVerify(context, Int32(verify), nil)
        let minimum = configuration.minimumVersion.wireValue
        guard openSSL.contextControl(context, Int32(SLUICE_SSL_CTRL_SET_MIN_PROTO_VERSION), minimum, nil) == 1 else {
            throw TLSSetupError("the minimum version \(configuration.minimumVersion) was refused: \(errors())")
        }
        _ = openSSL.contextSetOptions(context, SLUICE_SSL_OP_NO_RENEGOTIATION)
        // Writes of part of a buffer, as a socket takes them; the buffer may move between an attempt and its retry.
        let mode = SLUICE_SSL_MODE_ENABLE_PARTIAL_WRITE | SLUICE_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
        _ = openSSL.contextControl(context, Int32(SLUICE_SSL_CTRL_MODE), mode, nil)
        // Sessions are kept by TLSContext, the last one of each origin. OpenSSL's own store would add the session of
        // every new connection and never look one up on a client, holding up to 20,480 of them (about 100 MB) until
        // they expire: it is left empty.
        _ = openSSL.contextControl(
            context,
            Int32(SLUICE_SSL_CTRL_SET_SESS_CACHE_MODE),
            SLUICE_SSL_SESS_CACHE_CLIENT | SLUICE_SSL_SESS_CACHE_NO_INTERNAL_STORE,
            nil
        )
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike its neighbours.
        let alpnSet = TLSContext.alpnProtocols.withUnsafeBufferPointer {
            openSSL.contextSetALPNProtocols(context, $0.baseAddress, UInt32($0.count)) == 0
        }
        guard alpnSet else {
            throw TLSSetupError("the ALPN protocols could not be set: \(errors())")
        }
        if let identity = configuration.clientIdentity {
            try useClientIdentity(identity)
        }
    }

    private func useClientIdentity(_ identity: TLSConfiguration.ClientIdentity) throws {
        var certificates = try readCertificates(identity.certificateChain)
        guard !certificates.isEmpty else {
            throw TLSSetupError("\(identity.certificateChain.origin) holds no certificate")
        }
        let leaf = certificates.removeFirst()
        defer { openSSL.x509Free(leaf) }
        guard openSSL.contextUseCertificate(context, leaf) == 1 else {
            free(certificates)
            throw TLSSetupError("the client certificate was refused: \(errors())")
        }
        for (index, intermediate) in certificates.enumerated() {
            // SSL_CTX_add_extra_chain_cert takes ownership of the certificate when it succeeds.
            let added = openSSL.contextControl(
                context,
                Int32(SLUICE_SSL_CTRL_EXTRA_CHAIN_CERT),
                0,
                UnsafeMutableRawPointer(intermediate)
            )
            guard added == 1 else {
                free(certificates[index...])
                throw TLSSetupError("an intermediate of the client certificate was refused: \(errors())")
            }
        }
        let keyText = try identity.privateKey.read()
        let key = try withMemoryBIO(keyText) { openSSL.pemReadPrivateKey($0, nil, nil, nil) }
        guard let key else {
            throw TLSSetupError("\(identity.privateKey.origin) holds no private key: \(errors())")
        }
        defer { openSSL.keyFree(key) }
        guard openSSL.contextUsePrivateKey(context, key) == 1, openSSL.contextCheckPrivateKey(context) == 1 else {
            throw TLSSetupError("the private key does not match the client certificate: \(errors())")
        }
    }

    /// Every certificate in PEM text; the caller frees them.
    private func readCertificates(_ pem: TLSConfiguration.PEM) throws -> [OpaquePointer] {
        let text = try pem.read()
        let certificates = try withMemoryBIO(text) { bio -> [OpaquePointer] in
            var certificates: [OpaquePointer] = []
            while let certificate = openSSL.pemReadX509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
            return certificates
        }
        // The read that ends the loop queues "no start line"; it is not an error.
        openSSL.errClearError()
        guard !certificates.isEmpty else {
            throw TLSSetupError("\(pem.origin) holds no PEM certificate")
        }
        return certificates
    }

    /// Frees certificates this context read and did not hand to OpenSSL.
    private func free(_ certificates: some Sequence<OpaquePointer>) {
        for certificate in certificates {
            openSSL.x509Free(certificate)
        }
    }

    /// Calls `body` with a read-only memory BIO over the bytes.
    private func withMemoryBIO<Result>(_ bytes: Data, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, let bio = openSSL.bioNewMemoryBuffer(base, Int32(buffer.count)) else {
                throw TLSSetupError("empty PEM text")
            }
            defer { _ = openSSL.bioFree(bio) }
            return try body(bio)
        }
    }

    private func errors() -> String {
        let messages = openSSL.drainErrors()
        return messages.isEmpty ? "no reason given" : messages.joined(separator: "; ")
    }
}
