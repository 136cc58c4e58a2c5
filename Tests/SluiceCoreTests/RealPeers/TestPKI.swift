import ClientFixtures
// Certificates made at test time with the openssl command line tool: a root, an intermediate, and the server and
// client certificates the TLS tests need, good and bad, in a temporary directory of their own.
import Foundation
import SluiceCore
import TestSupport

/// A certificate authority and the certificates it signed, written as PEM files into a temporary directory.
///
/// Made once per test run (``shared()``): a root, an intermediate signed by it, and leaves signed by the intermediate,
/// each with an EC P-256 key. Every server chain is the leaf then the intermediate, so a client needs only the root.
///
/// `.ci/run` installs `openssl`; elsewhere the tests that need it are skipped when it is missing, unless
/// `SLUICE_REQUIRE_PEERS=1`, when they fail.
final class TestPKI: Sendable {
    /// A key and its certificate chain, as files.
    struct Identity: Sendable {
        /// The leaf's certificate, then the chain up to (not including) the root.
        let chain: URL
        /// The leaf's certificate alone.
        let certificate: URL
        /// The leaf's private key.
        let key: URL
        /// The SHA-256 digest of the leaf's public key (SubjectPublicKeyInfo), base64, as a pin.
        let pin: String
    }

    /// The directory holding every file.
    let directory: URL
    /// The root's certificate: the trust root a client adds.
    let root: URL
    /// The pin of the root's key.
    let rootPin: String
    /// The intermediate's certificate.
    let intermediate: URL
    /// The pin of the intermediate's key.
    let intermediatePin: String
    /// For `localhost` and `127.0.0.1`, valid now.
    let good: Identity
    /// For `localhost`, expired a year ago.
    let expired: Identity
    /// For `localhost`, valid only from next year.
    let notYetValid: Identity
    /// For `wrong.example` and `other.example`, valid now.
    let wrongHost: Identity
    /// For `localhost`, signed by its own key.
    let selfSigned: Identity
    /// The good leaf without its intermediate in the chain.
    let missingIntermediate: Identity
    /// For `127.0.0.1` alone, as an IP address.
    let ipAddress: Identity
    /// A client certificate, for mutual TLS.
    let client: Identity

    /// The openssl executable: the first `openssl` on `PATH`, else `/usr/bin/openssl`; `nil` when there is none.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/openssl" } + ["/usr/bin/openssl"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }()

    /// The certificates of this run, made on first use; `nil` when there is no openssl.
    ///
    /// Read through ``shared()`` only: making them runs openssl a dozen times, and a test that read this on the
    /// cooperative pool would hold one of its few threads meanwhile (and so would every test that read it then, waiting
    /// for the first), stalling unrelated tests past their timeouts.
    private static let made: Result<TestPKI, TestPKIError>? = {
        guard let executable else { return nil }
        return Result { () throws(TestPKIError) in try TestPKI(openssl: executable) }
    }()

    /// The certificates once ``shared()`` has returned them, for code that cannot wait; `nil` before.
    static var madeAlready: Result<TestPKI, TestPKIError>? {
        madeSoFar.withLock { $0 }
    }

    private static let madeSoFar = Locked<Result<TestPKI, TestPKIError>?>(nil)

    /// The certificates of this run, made on first use off the cooperative pool; `nil` when there is no openssl.
    static func shared() async -> Result<TestPKI, TestPKIError>? {
        let made = await offThePool { Self.made }
        madeSoFar.withLock { $0 = made }
        return made
    }

    /// Makes every certificate.
    ///
    /// - Parameter openssl: The openssl executable.
    /// - Throws: ``TestPKIError`` with openssl's output when a command failed.
    private init(openssl: URL) throws(TestPKIError) {
        var template = Array("/tmp/sluice-pki.XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TestPKIError(description: "mkdtemp failed")
        }
        let directory = URL(fileURLWithPath: String(cString: created), isDirectory: true)
        self.directory = directory
        let run = { (arguments: [String]) throws(TestPKIError) in try Self.run(openssl, arguments, in: directory) }
        func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
        func write(_ text: String, to name: String) throws(TestPKIError) {
            do {
                try Data(text.utf8).write(to: file(name))
            } catch {
                throw TestPKIError(description: "writing \(name) failed: \(error)")
            }
        }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try write(
            """
            [ca]
            basicConstraints = critical, CA:true
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            [server]
            basicConstraints = critical, CA:false
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            [client]
            basicConstraints = critical, CA:false
            keyUsage = critical, digitalSignature
            extendedKeyUsage = clientAuth
            [ca_config]
            dir = \(directory.path)
            database = \(directory.path)/index.txt
            new_certs_dir = \(directory.path)
            serial = \(directory.path)/serial
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [any]
            commonName = supplied

            """,
            to: "openssl.cnf"
        )
        try write("", to: "index.txt")
        try write("1000\n", to: "serial")
        let config = file("openssl.cnf").path

        // The root, self-signed, and the intermediate it signs.
        try run(
            ["req", "-x509"] + curve + [
                "-keyout", "root.key", "-out", "root.pem", "-days", "30", "-subj", "/CN=Sluice Test Root",
                "-config", config, "-extensions", "ca",
            ]
        )
        try run(
            ["req", "-new"] + curve + ["-keyout", "intermediate.key", "-out", "intermediate.csr"]
                + ["-subj", "/CN=Sluice Test Intermediate", "-config", config]
        )
        try run(
            [
                "x509", "-req", "-in", "intermediate.csr", "-CA", "root.pem", "-CAkey", "root.key", "-set_serial", "2",
                "-days", "30", "-out", "intermediate.pem", "-extfile", config, "-extensions", "ca",
            ]
        )
        root = file("root.pem")
        intermediate = file("intermediate.pem")
        rootPin = try Self.pin(of: "root.key", openssl: openssl, in: directory)
        intermediatePin = try Self.pin(of: "intermediate.key", openssl: openssl, in: directory)

        /// A leaf signed by the intermediate with `openssl ca`, which takes explicit dates.
        func leaf(
            _ name: String,
            names: String,
            profile: String = "server",
            from start: String = "-1d",
            to end: String = "+30d"
        ) throws(TestPKIError) -> Identity {
            try run(
                ["req", "-new"] + curve + [
                    "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)", "-addext",
                    "subjectAltName=\(names)", "-config", config,
                ]
            )
            try run(
                [
                    "ca", "-batch", "-config", config, "-name", "ca_config", "-cert", "intermediate.pem", "-keyfile",
                    "intermediate.key", "-in", "\(name).csr", "-out", "\(name).pem", "-notext", "-startdate",
                    Self.date(start), "-enddate", Self.date(end), "-extfile", config, "-extensions", profile,
                ]
            )
            try Self.concatenate(["\(name).pem", "intermediate.pem"], into: "\(name)-chain.pem", in: directory)
            return Identity(
                chain: file("\(name)-chain.pem"),
                certificate: file("\(name).pem"),
                key: file("\(name).key"),
                pin: try Self.pin(of: "\(name).key", openssl: openssl, in: directory)
            )
        }
        good = try leaf("good", names: "DNS:localhost,IP:127.0.0.1")
        expired = try leaf("expired", names: "DNS:localhost", from: "-400d", to: "-365d")
        notYetValid = try leaf("future", names: "DNS:localhost", from: "+365d", to: "+400d")
        wrongHost = try leaf("wronghost", names: "DNS:wrong.example,DNS:other.example")
        ipAddress = try leaf("ip", names: "IP:127.0.0.1")
        client = try leaf("client", names: "DNS:client.example", profile: "client")
        missingIntermediate = Identity(
            chain: good.certificate,
            certificate: good.certificate,
            key: good.key,
            pin: good.pin
        )
        try run(
            ["req", "-x509"] + curve + [
                "-keyout", "self.key", "-out", "self.pem", "-days", "30", "-subj", "/CN=localhost", "-addext",
                "subjectAltName=DNS:localhost", "-config", config, "-extensions", "server",
            ]
        )
        selfSigned = Identity(
            chain: file("self.pem"),
            certificate: file("self.pem"),
            key: file("self.key"),
            pin: try Self.pin(of: "self.key", openssl: openssl, in: directory)
        )
    }

    /// A date relative to now, `-400d` or `+30d`, in the form `openssl ca` takes (`YYYYMMDDHHMMSSZ`).
    private static func date(_ offset: String) -> String {
        let days = Int(offset.dropLast()) ?? 0
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    /// The pin of a key: the base64 SHA-256 digest of its public key's DER form.
    private static func pin(of key: String, openssl: URL, in directory: URL) throws(TestPKIError) -> String {
        let der = "\(key).pub.der"
        try run(openssl, ["pkey", "-in", key, "-pubout", "-outform", "DER", "-out", der], in: directory)
        guard let bytes = try? Data(contentsOf: directory.appendingPathComponent(der)) else {
            throw TestPKIError(description: "no public key in \(der)")
        }
        return Data(SHA256.hash(Array(bytes))).base64EncodedString()
    }

    /// Writes files one after the other into another.
    private static func concatenate(_ names: [String], into name: String, in directory: URL) throws(TestPKIError) {
        var joined = Data()
        for part in names {
            guard let bytes = try? Data(contentsOf: directory.appendingPathComponent(part)) else {
                throw TestPKIError(description: "\(part) is missing")
            }
            joined.append(bytes)
        }
        do {
            try joined.write(to: directory.appendingPathComponent(name))
        } catch {
            throw TestPKIError(description: "writing \(name) failed: \(error)")
        }
    }

    /// Runs openssl in the directory and waits for it to exit.
    ///
    /// - Throws: ``TestPKIError`` with its output when it failed.
    private static func run(_ openssl: URL, _ arguments: [String], in directory: URL) throws(TestPKIError) {
        let output = Pipe()
        let process: ChildProcess
        do {
            process = try ChildProcess(
                openssl,
                arguments,
                directory: directory,
                standardOutput: .pipe(output),
                standardError: .pipe(output)
            )
        } catch {
            throw TestPKIError(description: "openssl could not start: \(error)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestPKIError(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}

/// Why the test certificates could not be made.
struct TestPKIError: Error, CustomStringConvertible {
    /// What failed, with openssl's output.
    let description: String
}
