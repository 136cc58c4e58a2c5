import ClientFixtures
// Sluice's own transport over TLS against nginx, with certificates made at test time: good chains work, and every
// bad one fails with an error that names what was wrong.
import Foundation
import SluiceCore
import Testing

// URLRequest lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether the TLS tests can run: nginx and openssl are there, or the run requires them (and they fail).
let tlsPeersPresent = (NginxServer.executable != nil && TestPKI.executable != nil) || NginxServer.isRequired

/// Why the TLS tests are skipped.
let tlsPeersMissing: Comment =
    "nginx or openssl is missing; SLUICE_REQUIRE_PEERS=1 makes their absence a failure"

/// The certificates of the run, or a failure when the peers are required and openssl is missing.
func requirePKI() async throws -> TestPKI {
    try #require(await TestPKI.shared(), "SLUICE_REQUIRE_PEERS is set, but openssl is missing").get()
}

/// Starts nginx with a TLS site, or fails when the peers are required and nginx is missing.
func startTLSServer(_ site: NginxServer.TLSSite) async throws -> NginxServer {
    try #require(try await NginxServer.startOffThePool(tls: site), "SLUICE_REQUIRE_PEERS is set, but nginx is missing")
}

/// An OpenSSL the TLS suites run with: the system's, and OpenSSL 1.1.1 when the run has one.
///
/// 1.1.1 is loaded from the directory `SLUICE_OPENSSL_1_1_DIR` names, which holds a `libssl…so.1.1` and the
/// `libcrypto…so.1.1` beside it: `.ci/run` puts there those of psycopg2-binary's wheel from PyPI, an OpenSSL 1.1.1
/// build, since the system here has only 3.0. A run that requires the peers and lacks it fails the tests that use it.
struct TLSLibrary: Sendable, CustomTestStringConvertible {
    /// The library's name in the test's description.
    let name: String
    /// The library; `nil` for the system's, which the public initializer loads; or why it is missing.
    let library: Result<OpenSSL?, TLSLibraryMissing>

    var testDescription: String { name }

    /// The system's OpenSSL.
    static let system = TLSLibrary(name: "system OpenSSL", library: .success(nil))

    /// The system's OpenSSL, and 1.1.1 when the run has it or requires it.
    static let all: [TLSLibrary] = {
        guard let directory = ProcessInfo.processInfo.environment["SLUICE_OPENSSL_1_1_DIR"] else {
            let missing = TLSLibraryMissing(
                description: "SLUICE_REQUIRE_PEERS is set, but SLUICE_OPENSSL_1_1_DIR names no OpenSSL 1.1.1"
            )
            return NginxServer.isRequired
                ? [system, TLSLibrary(name: "OpenSSL 1.1.1", library: .failure(missing))] : [system]
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        func path(_ prefix: String) -> String {
            directory + "/" + (files.first { $0.hasPrefix(prefix) && $0.hasSuffix(".so.1.1") } ?? prefix + ".so.1.1")
        }
        let loaded = OpenSSL.load([(path("libssl"), path("libcrypto"))])
            .map { Optional($0) }
            .mapError { TLSLibraryMissing(description: "\($0)") }
        return [system, TLSLibrary(name: "OpenSSL 1.1.1", library: loaded)]
    }()

    /// Whether this is OpenSSL 1.1.1, whose words for some verification errors differ from 3.0's.
    var isVersion1: Bool { name != TLSLibrary.system.name }

    /// A performer whose `https://` connections use this library.
    func performer(_ configuration: SocketRequestPerformer.Configuration) throws -> SocketRequestPerformer {
        guard let openSSL = try library.get() else {
            return SocketRequestPerformer(configuration: configuration)
        }
        return SocketRequestPerformer(configuration: configuration, tlsLibrary: openSSL)
    }
}

/// Why an OpenSSL the tests need could not be loaded.
struct TLSLibraryMissing: Error, CustomStringConvertible {
    let description: String
}

/// A performer that sends `https://` itself, trusting the test root unless told otherwise, and whose fallback fails
/// every request, so that nothing reaches URLSession unnoticed.
func tlsPerformer(
    _ pki: TestPKI,
    library: TLSLibrary = .system,
    trustingTestRoot: Bool = true,
    _ configure: (inout TLSConfiguration) -> Void = { _ in },
    connectTimeout: Duration = .seconds(10),
    streamReadAhead: Int = 256 << 10
) throws -> SocketRequestPerformer {
    var tls = TLSConfiguration()
    if trustingTestRoot {
        tls.additionalTrustRoots = [.file(pki.root.path)]
    }
    configure(&tls)
    let performer = try library.performer(
        .init(
            connectTimeout: connectTimeout,
            streamReadAhead: streamReadAhead,
            tls: tls,
            fallback: NoFallback()
        )
    )
    try #require(performer.handlesHTTPS, "\(SocketRequestPerformer.httpsUnavailableReason ?? "")")
    return performer
}

/// A fallback that fails every request: the TLS tests must not reach URLSession.
struct NoFallback: RequestPerformer {
    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        throw SluiceError(.transport, message: "the fallback was asked for \(request.url?.absoluteString ?? "?")")
    }
}

/// The message of the error a request to a URL fails with.
func failureMessage(_ url: URL, with performer: SocketRequestPerformer) async -> String? {
    let error = await #expect(throws: SluiceError.self) {
        _ = try await performer.perform(URLRequest(url: url))
    }
    return error?.message
}

/// The TLS suites against nginx, one test at a time: together with the rest of the tests they would weigh on the
/// process's memory, which the soak's suite measures.
@Suite(.serialized, .enabled(if: tlsPeersPresent, tlsPeersMissing))
enum NginxTLSTests {}

/// A good chain works; each bad certificate fails with an error naming what was wrong.
extension NginxTLSTests {
    @Suite
    struct VerificationTests {
        let pki: TestPKI

        init() async throws {
            pki = try await requirePKI()
        }

        /// With the test root added, documents arrive whole, the connection is kept alive, and one connection carries
        /// the requests in turn.
        @Test(arguments: TLSLibrary.all)
        func aGoodChainServesTheDocuments(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let performer = try tlsPerformer(pki, library: library)
            for _ in 0..<3 {
                let small = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
                #expect(small.status.code == 200)
                #expect(small.body == NginxServer.smallJSON)
            }
            let large = try await performer.perform(URLRequest(url: try server.httpsURL("/large.bin")))
            #expect(large.body == NginxServer.largeBinary)
            let connection = try await performer.perform(URLRequest(url: try server.httpsURL("/connection")))
            #expect(String(decoding: connection.body, as: UTF8.self).split(separator: " ").last == "5")
            let host = try await performer.perform(URLRequest(url: try server.httpsURL("/echo-host")))
            #expect(String(decoding: host.body, as: UTF8.self) == "localhost:\(server.tlsPort ?? 0)")
            #expect(performer.openConnections == 1)
        }

        /// A trust root given as PEM bytes, alone (without the system's), is trusted as one from a file is.
        @Test(arguments: TLSLibrary.all)
        func aTrustRootFromBytesAlone(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let root = try Data(contentsOf: pki.root)
            let performer = try tlsPerformer(pki, library: library, trustingTestRoot: false) {
                $0.trustsSystemRoots = false
                $0.additionalTrustRoots = [.bytes(root)]
            }
            let response = try await performer.perform(URLRequest(url: try server.httpsURL("/small.json")))
            #expect(response.body == NginxServer.smallJSON)
        }

        /// Without the test root, the chain's issuer is unknown.
        @Test(arguments: TLSLibrary.all)
        func anUnknownIssuerFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let performer = try tlsPerformer(pki, library: library, trustingTestRoot: false)
            let message = await failureMessage(try server.httpsURL("/small.json"), with: performer)
            #expect(
                message
                    == "the certificate of localhost:\(server.tlsPort ?? 0) is signed by an unknown authority, not one this client trusts (unable to get local issuer certificate, X509 error 20)"
            )
            #expect(performer.openConnections == 0, "a connection that failed TLS is not pooled")
        }

        /// A chain without its intermediate cannot be verified up to the root.
        @Test(arguments: TLSLibrary.all)
        func aMissingIntermediateFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.missingIntermediate.chain, key: pki.good.key))
            let message = await failureMessage(
                try server.httpsURL("/small.json"),
                with: try tlsPerformer(pki, library: library)
            )
            #expect(
                message
                    == "the certificate of localhost:\(server.tlsPort ?? 0) is signed by an unknown authority, not one this client trusts (unable to get local issuer certificate, X509 error 20)"
            )
        }

        /// An expired certificate fails, and says so.
        @Test(arguments: TLSLibrary.all)
        func anExpiredCertificateFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.expired.chain, key: pki.expired.key))
            let message = await failureMessage(
                try server.httpsURL("/small.json"),
                with: try tlsPerformer(pki, library: library)
            )
            #expect(
                message
                    == "the certificate of localhost:\(server.tlsPort ?? 0) has expired (certificate has expired, X509 error 10)"
            )
        }

        /// A certificate valid only from next year fails, and says so.
        @Test(arguments: TLSLibrary.all)
        func aNotYetValidCertificateFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.notYetValid.chain, key: pki.notYetValid.key))
            let message = await failureMessage(
                try server.httpsURL("/small.json"),
                with: try tlsPerformer(pki, library: library)
            )
            #expect(
                message
                    == "the certificate of localhost:\(server.tlsPort ?? 0) is not yet valid (certificate is not yet valid, X509 error 9)"
            )
        }

        /// A certificate for other names fails, naming the names it holds where OpenSSL keeps the certificate of a
        /// failed handshake (3.0, not 1.1.1).
        @Test(arguments: TLSLibrary.all)
        func aCertificateForAnotherHostFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.wrongHost.chain, key: pki.wrongHost.key))
            let message = await failureMessage(
                try server.httpsURL("/small.json"),
                with: try tlsPerformer(pki, library: library)
            )
            #expect(
                message
                    == (library.isVersion1
                        ? "the certificate of localhost:\(server.tlsPort ?? 0) is not for localhost (Hostname mismatch, X509 error 62)"
                        : "the certificate of localhost:\(server.tlsPort ?? 0) is for wrong.example, other.example, not for localhost (hostname mismatch, X509 error 62)")
            )
        }

        /// A self-signed certificate fails, unless verification is turned off by its insecure switch.
        @Test(arguments: TLSLibrary.all)
        func aSelfSignedCertificateFailsUnlessVerificationIsOff(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.selfSigned.chain, key: pki.selfSigned.key))
            let url = try server.httpsURL("/small.json")
            let message = await failureMessage(url, with: try tlsPerformer(pki, library: library))
            #expect(
                message
                    == "the certificate of localhost:\(server.tlsPort ?? 0) is self-signed, and not one this client trusts (\(library.isVersion1 ? "self signed" : "self-signed") certificate, X509 error 18)"
            )
            let insecure = try tlsPerformer(pki, library: library) { $0.insecurelySkippingVerification = true }
            let log = EventLog()
            #expect(try await insecure.observed(by: log).perform(URLRequest(url: url)).body == NginxServer.smallJSON)
            // The warning reaches the observers, each time, rather than standard error.
            #expect(
                log.events.last?.warnings == [
                    "TLS certificate verification is off (insecurelySkippingVerification): the certificate of localhost:\(server.tlsPort ?? 0) was not checked, and any server is trusted"
                ]
            )
        }

        /// An IP address is checked against the certificate's IP addresses: one it holds works, one it lacks fails.
        @Test(arguments: TLSLibrary.all)
        func anIPAddressIsCheckedAgainstTheCertificate(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.ipAddress.chain, key: pki.ipAddress.key))
            let performer = try tlsPerformer(pki, library: library)
            let response = try await performer.perform(
                URLRequest(url: try server.httpsURL("/small.json", host: "127.0.0.1"))
            )
            #expect(response.body == NginxServer.smallJSON)

            let other = try await startTLSServer(.init(chain: pki.wrongHost.chain, key: pki.wrongHost.key))
            let message = await failureMessage(try other.httpsURL("/small.json", host: "127.0.0.1"), with: performer)
            #expect(
                message
                    == (library.isVersion1
                        ? "the certificate of 127.0.0.1:\(other.tlsPort ?? 0) is not for 127.0.0.1 (IP address mismatch, X509 error 64)"
                        : "the certificate of 127.0.0.1:\(other.tlsPort ?? 0) is for wrong.example, other.example, not for 127.0.0.1 (IP address mismatch, X509 error 64)")
            )
        }

        /// A plain HTTP server answers a handshake with an HTTP error: the failure says the port serves http://.
        @Test(arguments: TLSLibrary.all)
        func aPlainHTTPServerOnTheTLSPortFails(_ library: TLSLibrary) async throws {
            let server = try await startTLSServer(.init(chain: pki.good.chain, key: pki.good.key))
            let url = try #require(URL(string: "https://localhost:\(server.port)/small.json"))
            let message = await failureMessage(url, with: try tlsPerformer(pki, library: library))
            #expect(
                message
                    == "the server localhost:\(server.port) answered the TLS handshake in plain HTTP: it serves http://, not https://, on this port"
            )
        }
    }
}
