import CSluiceSystem

/// The system's OpenSSL, loaded at run time: `libssl.so.3` (else `libssl.so.1.1`) and the `libcrypto` of the same
/// version, the libraries FoundationNetworking's libcurl already loads into a Linux process.
///
/// Nothing of OpenSSL is linked at build time, so the package builds without its headers and a fully static program
/// still runs: there ``shared`` fails, and `https://` goes to the fallback performer. Every symbol is looked up and
/// checked once, at load; a library that lacks one is not used at all, and the error names what was missing.
///
/// The handles are never closed: the functions live as long as the process. `@unchecked Sendable`: every property is
/// a constant, and OpenSSL's functions may be called from any thread.
package final class OpenSSL: @unchecked Sendable {
    /// The library, or why it could not be loaded; loaded on first use.
    static let shared: Result<OpenSSL, SystemLibraryUnavailable> = load(candidates)

    /// The library names tried, in order: a libssl and the libcrypto of the same version.
    static let candidates = [("libssl.so.3", "libcrypto.so.3"), ("libssl.so.1.1", "libcrypto.so.1.1")]

    /// The libssl file that was loaded, such as `libssl.so.3`.
    package let libraryName: String

    // libssl
    let tlsClientMethod: SluiceTLSClientMethod
    let contextNew: SluiceSSLContextNew
    let contextFree: SluiceSSLContextFree
    let contextSetDefaultVerifyPaths: SluiceSSLContextSetDefaultVerifyPaths
    let contextGetCertStore: SluiceSSLContextGetCertStore
    let contextSetVerify: SluiceSSLContextSetVerify
    let contextControl: SluiceSSLContextControl
    let contextSetOptions: SluiceSSLContextSetOptions
    let contextSetALPNProtocols: SluiceSSLContextSetALPNProtocols
    let setALPNProtocols: SluiceSSLSetALPNProtocols
    let contextUseCertificate: SluiceSSLContextUseCertificate
    let contextUsePrivateKey: SluiceSSLContextUsePrivateKey
    let contextCheckPrivateKey: SluiceSSLContextCheckPrivateKey
    let sslNew: SluiceSSLNew
    let sslFree: SluiceSSLFree
    let setBIO: SluiceSSLSetBIO
    let setConnectState: SluiceSSLSetConnectState
    let doHandshake: SluiceSSLDoHandshake
    let read: SluiceSSLRead
    let write: SluiceSSLWrite
    let getError: SluiceSSLGetError
    let shutdown: SluiceSSLShutdown
    let pending: SluiceSSLPending
    let control: SluiceSSLControl
    let set1Host: SluiceSSLSet1Host
    let get0Param: SluiceSSLGet0Param
    let getVerifyResult: SluiceSSLGetVerifyResult
    let get0ALPNSelected: SluiceSSLGet0ALPNSelected
    let get0VerifiedChain: SluiceSSLGet0VerifiedChain
    let get1PeerCertificate: SluiceSSLGet1PeerCertificate
    let getPeerCertChain: SluiceSSLGetPeerCertChain
    let getVersion: SluiceSSLGetVersion
    let get1Session: SluiceSSLGet1Session
    let setSession: SluiceSSLSetSession
    let sessionReused: SluiceSSLSessionReused
    let sessionFree: SluiceSSLSessionFree
    let sessionIsResumable: SluiceSSLSessionIsResumable

    // libcrypto
    let bioSMem: SluiceBIOSMem
    let bioNew: SluiceBIONew
    let bioNewMemoryBuffer: SluiceBIONewMemoryBuffer
    let bioRead: SluiceBIORead
    let bioWrite: SluiceBIOWrite
    let bioPending: SluiceBIOControlPending
    let bioFree: SluiceBIOFree
    let errGetError: SluiceERRGetError
    let errErrorStringN: SluiceERRErrorStringN
    let errClearError: SluiceERRClearError
    let verifyCertErrorString: SluiceX509VerifyCertErrorString
    let pemReadX509: SluicePEMReadBIOX509
    let pemReadPrivateKey: SluicePEMReadBIOPrivateKey
    let storeAddCert: SluiceX509StoreAddCert
    let x509Free: SluiceX509Free
    let keyFree: SluiceEVPKeyFree
    let verifyParamSet1IP: SluiceX509VerifyParamSet1IP
    let x509GetPublicKey: SluiceX509GetX509PublicKey
    let i2dPublicKey: SluiceI2DX509PublicKey
    let sha256: SluiceSHA256
    let stackCount: SluiceStackCount
    let stackValue: SluiceStackValue
    let x509GetExtension: SluiceX509GetExtensionD2I
    let generalNamesFree: SluiceGeneralNamesFree
    let asn1StringData: SluiceASN1StringGet0Data
    let asn1StringLength: SluiceASN1StringLength

    /// Looks every symbol up in a loaded libssl and libcrypto.
    ///
    /// - Throws: ``SystemLibraryUnavailable`` naming each symbol missing.
    private init(
        libraryName: String,
        ssl: UnsafeMutableRawPointer,
        crypto: UnsafeMutableRawPointer
    ) throws(SystemLibraryUnavailable) {
        var lookup = SymbolLookup(library: libraryName)
        self.libraryName = libraryName
        tlsClientMethod = lookup.find("TLS_client_method", in: ssl)
        contextNew = lookup.find("SSL_CTX_new", in: ssl)
        contextFree = lookup.find("SSL_CTX_free", in: ssl)
        contextSetDefaultVerifyPaths = lookup.find("SSL_CTX_set_default_verify_paths", in: ssl)
        contextGetCertStore = lookup.find("SSL_CTX_get_cert_store", in: ssl)
        contextSetVerify = lookup.find("SSL_CTX_set_verify", in: ssl)
        contextControl = lookup.find("SSL_CTX_ctrl", in: ssl)
        contextSetOptions = lookup.find("SSL_CTX_set_options", in: ssl)
        contextSetALPNProtocols = lookup.find("SSL_CTX_set_alpn_protos", in: ssl)
        setALPNProtocols = lookup.find("SSL_set_alpn_protos", in: ssl)
        contextUseCertificate = lookup.find("SSL_CTX_use_certificate", in: ssl)
        contextUsePrivateKey = lookup.find("SSL_CTX_use_PrivateKey", in: ssl)
        contextCheckPrivateKey = lookup.find("SSL_CTX_check_private_key", in: ssl)
        sslNew = lookup.find("SSL_new", in: ssl)
        sslFree = lookup.find("SSL_free", in: ssl)
        setBIO = lookup.find("SSL_set_bio", in: ssl)
        setConnectState = lookup.find("SSL_set_connect_state", in: ssl)
        doHandshake = lookup.find("SSL_do_handshake", in: ssl)
        read = lookup.find("SSL_read", in: ssl)
        write = lookup.find("SSL_write", in: ssl)
        getError = lookup.find("SSL_get_error", in: ssl)
        shutdown = lookup.find("SSL_shutdown", in: ssl)
        pending = lookup.find("SSL_pending", in: ssl)
        control = lookup.find("SSL_ctrl", in: ssl)
        set1Host = lookup.find("SSL_set1_host", in: ssl)
        get0Param = lookup.find("SSL_get0_param", in: ssl)
        getVerifyResult = lookup.find("SSL_get_verify_result", in: ssl)
        get0ALPNSelected = lookup.find("SSL_get0_alpn_selected", in: ssl)
        get0VerifiedChain = lookup.find("SSL_get0_verified_chain", in: ssl)
        // OpenSSL 3 renamed it, keeping the old name only as a macro; 1.1.1 has the old name alone.
        get1PeerCertificate = lookup.find(["SSL_get1_peer_certificate", "SSL_get_peer_certificate"], in: ssl)
        getPeerCertChain = lookup.find("SSL_get_peer_cert_chain", in: ssl)
        getVersion = lookup.find("SSL_get_version", in: ssl)
        get1Session = lookup.find("SSL_get1_session", in: ssl)
        setSession = lookup.find("SSL_set_session", in: ssl)
        sessionReused = lookup.find("SSL_session_reused", in: ssl)
        sessionFree = lookup.find("SSL_SESSION_free", in: ssl)
        sessionIsResumable = lookup.find("SSL_SESSION_is_resumable", in: ssl)

        bioSMem = lookup.find("BIO_s_mem", in: crypto)
        bioNew = lookup.find("BIO_new", in: crypto)
        bioNewMemoryBuffer = lookup.find("BIO_new_mem_buf", in: crypto)
        bioRead = lookup.find("BIO_read", in: crypto)
        bioWrite = lookup.find("BIO_write", in: crypto)
        bioPending = lookup.find("BIO_ctrl_pending", in: crypto)
        bioFree = lookup.find("BIO_free", in: crypto)
        errGetError = lookup.find("ERR_get_error", in: crypto)
        errErrorStringN = lookup.find("ERR_error_string_n", in: crypto)
        errClearError = lookup.find("ERR_clear_error", in: crypto)
        verifyCertErrorString = lookup.find("X509_verify_cert_error_string", in: crypto)
        pemReadX509 = lookup.find("PEM_read_bio_X509", in: crypto)
        pemReadPrivateKey = lookup.find("PEM_read_bio_PrivateKey", in: crypto)
        storeAddCert = lookup.find("X509_STORE_add_cert", in: crypto)
        x509Free = lookup.find("X509_free", in: crypto)
        keyFree = lookup.find("EVP_PKEY_free", in: crypto)
        verifyParamSet1IP = lookup.find("X509_VERIFY_PARAM_set1_ip", in: crypto)
        x509GetPublicKey = lookup.find("X509_get_X509_PUBKEY", in: crypto)
        i2dPublicKey = lookup.find("i2d_X509_PUBKEY", in: crypto)
        sha256 = lookup.find("SHA256", in: crypto)
        stackCount = lookup.find("OPENSSL_sk_num", in: crypto)
        stackValue = lookup.find("OPENSSL_sk_value", in: crypto)
        x509GetExtension = lookup.find("X509_get_ext_d2i", in: crypto)
        generalNamesFree = lookup.find("GENERAL_NAMES_free", in: crypto)
        asn1StringData = lookup.find("ASN1_STRING_get0_data", in: crypto)
        asn1StringLength = lookup.find("ASN1_STRING_length", in: crypto)
        try lookup.check(as: "OpenSSL")
    }

    /// Loads the first candidate pair that opens and has every symbol.
    ///
    /// - Parameter candidates: Pairs of a libssl and its libcrypto, by file name or path, tried in order.
    /// - Returns: The library, or why none of the pairs could be used.
    package static func load(_ candidates: [(String, String)]) -> Result<OpenSSL, SystemLibraryUnavailable> {
        var reasons: [String] = []
        for (sslName, cryptoName) in candidates {
            do throws(SystemLibraryUnavailable) {
                let crypto = try SystemLibrary.open(cryptoName, as: "OpenSSL").get()
                let ssl = try SystemLibrary.open(sslName, as: "OpenSSL").get()
                return .success(try OpenSSL(libraryName: sslName, ssl: ssl, crypto: crypto))
            } catch {
                reasons.append(error.reason)
            }
        }
        return .failure(SystemLibraryUnavailable(library: "OpenSSL", reason: reasons.joined(separator: "; ")))
    }

    /// The errors OpenSSL queued on this thread, as its own words, oldest first, and the queue emptied.
    func drainErrors() -> [String] {
        var messages: [String] = []
        while true {
            let code = errGetError()
            guard code != 0 else { return messages }
            var buffer = [CChar](repeating: 0, count: 256)
            errErrorStringN(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}
