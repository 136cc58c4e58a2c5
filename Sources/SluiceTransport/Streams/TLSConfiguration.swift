import Foundation

/// How ``SocketRequestPerformer`` secures `https://` connections: whom it trusts, which keys it pins, the client
/// certificate it presents, and the oldest protocol version it accepts.
///
/// The default is secure: the system's trust store (OpenSSL's default paths, which honour `SSL_CERT_FILE` and
/// `SSL_CERT_DIR`), the server's certificate checked against the URL's host name or IP address, TLS 1.2 at least,
/// no renegotiation.
///
/// ```swift
/// var tls = TLSConfiguration()
/// tls.additionalTrustRoots = [.file("/etc/company/ca.pem")]
/// tls.pinnedPublicKeys = ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="]
/// let performer = SocketRequestPerformer(configuration: .init(tls: tls))
/// ```
public struct TLSConfiguration: Sendable, Hashable {
    /// Certificates or a key in PEM form, from a file or from bytes.
    public struct PEM: Sendable, Hashable {
        enum Source: Sendable, Hashable {
            case file(String)
            case bytes(Data)
        }

        let source: Source

        /// The PEM text in a file, read when the performer first opens an `https://` connection.
        ///
        /// - Parameter path: The file's path.
        /// - Returns: The source.
        public static func file(_ path: String) -> PEM { PEM(source: .file(path)) }

        /// PEM text in memory.
        ///
        /// - Parameter bytes: The text, one or more `-----BEGIN …-----` blocks.
        /// - Returns: The source.
        public static func bytes(_ bytes: Data) -> PEM { PEM(source: .bytes(bytes)) }

        /// The PEM text, read from its file if it is one.
        func read() throws -> Data {
            switch source {
            case .bytes(let bytes):
                return bytes
            case .file(let path):
                do {
                    return try Data(contentsOf: URL(fileURLWithPath: path))
                } catch {
                    throw TLSSetupError("could not read \(path): \(error.localizedDescription)")
                }
            }
        }

        /// Where the text comes from, for messages.
        var origin: String {
            switch source {
            case .file(let path): path
            case .bytes(let bytes): "\(bytes.count) bytes of PEM"
            }
        }
    }

    /// A protocol version.
    ///
    /// An open set: compare against the static members.
    public struct Version: Sendable, Hashable, CustomStringConvertible {
        /// The version's number on the wire, such as `0x0303` for TLS 1.2.
        let wireValue: Int

        /// TLS 1.2.
        public static let tls12 = Version(wireValue: 0x0303)
        /// TLS 1.3.
        public static let tls13 = Version(wireValue: 0x0304)

        /// The version's name, such as `TLS 1.2`.
        public var description: String { "TLS 1.\(wireValue - 0x0301)" }
    }

    /// A certificate chain and its private key, presented to a server that asks for one (mutual TLS).
    public struct ClientIdentity: Sendable, Hashable {
        /// The client's certificate first, then any intermediates.
        public var certificateChain: PEM
        /// The certificate's private key, unencrypted.
        public var privateKey: PEM

        /// Creates an identity.
        ///
        /// - Parameters:
        ///   - certificateChain: The client's certificate first, then any intermediates.
        ///   - privateKey: The certificate's private key, unencrypted.
        public init(certificateChain: PEM, privateKey: PEM) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
        }
    }

    /// Whether the system's trust store is trusted; `true` by default.
    ///
    /// Set it to `false`, with ``additionalTrustRoots``, to trust those roots alone.
    public var trustsSystemRoots: Bool
    /// Certificate authorities trusted besides (or, without ``trustsSystemRoots``, instead of) the system's.
    public var additionalTrustRoots: [PEM]
    /// The SHA-256 digests of the public keys (SubjectPublicKeyInfo) one of which the server's verified chain must
    /// hold, base64-encoded as in `pin-sha256`; empty by default, for no pinning.
    ///
    /// Pinning fails closed: a connection whose chain holds none of them fails, and its error lists the digests seen.
    public var pinnedPublicKeys: [String]
    /// The certificate and key to present when a server asks for one; `nil` by default.
    public var clientIdentity: ClientIdentity?
    /// The oldest protocol version accepted; ``Version/tls12`` by default.
    public var minimumVersion: Version
    /// Whether the server's certificate is accepted without any check: any issuer, any date, any name.
    ///
    /// Never in production: anyone on the path can read and change the traffic. Pins are still checked. Each request
    /// that goes over TLS with it on notes a warning in its context, which its observers receive in the finish event
    /// (`RequestEvent.warnings`); the transport prints nothing itself.
    public var insecurelySkippingVerification: Bool

    /// Creates a configuration; every parameter has the default its property documents.
    ///
    /// - Parameters:
    ///   - trustsSystemRoots: Whether the system's trust store is trusted.
    ///   - additionalTrustRoots: Certificate authorities trusted besides the system's.
    ///   - pinnedPublicKeys: The base64 SHA-256 digests of the public keys one of which the chain must hold.
    ///   - clientIdentity: The certificate and key to present when a server asks.
    ///   - minimumVersion: The oldest protocol version accepted.
    ///   - insecurelySkippingVerification: Whether the server's certificate is accepted without any check.
    public init(
        trustsSystemRoots: Bool = true,
        additionalTrustRoots: [PEM] = [],
        pinnedPublicKeys: [String] = [],
        clientIdentity: ClientIdentity? = nil,
        minimumVersion: Version = .tls12,
        insecurelySkippingVerification: Bool = false
    ) {
        self.trustsSystemRoots = trustsSystemRoots
        self.additionalTrustRoots = additionalTrustRoots
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientIdentity = clientIdentity
        self.minimumVersion = minimumVersion
        self.insecurelySkippingVerification = insecurelySkippingVerification
    }

    /// Whether this is the default: nothing a user asked for would be lost if another transport sent the request.
    var isDefault: Bool { self == TLSConfiguration() }
}

/// Why a ``TLSConfiguration`` could not be put in place: a file unread, PEM text that holds no certificate, a key
/// that does not match its certificate.
struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
