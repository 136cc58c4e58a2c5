import Foundation

/// The hosts requests reach directly, without a proxy: the rules of a `NO_PROXY` list.
///
/// Each entry is one of:
/// - `*`: every host;
/// - a host name, with or without a leading `.` (or `*.`): that host and every host under it, so `example.com` and
///   `.example.com` both match `example.com` and `api.example.com`, never `badexample.com`; letter case and a
///   trailing `.` do not count;
/// - an IP address (`10.1.2.3`, `::1`, `[::1]`) or a CIDR range (`10.0.0.0/8`, `fe80::/10`): URLs that name an address
///   in it; a host name is not resolved to be compared;
/// - any of these but `*` followed by `:port` (`example.com:8080`, `[::1]:8080`): only URLs with that port.
package struct NoProxy: Hashable, Sendable {
    private enum Pattern: Hashable {
        case everything
        case domain(String)
        case network(bytes: [UInt8], prefixLength: Int)
    }

    private struct Rule: Hashable {
        var pattern: Pattern
        var port: Int?
    }

    private var rules: [Rule] = []

    /// No exceptions: every host goes through the proxy.
    package init() {}

    /// Reads a list as the `NO_PROXY` variable gives it: entries separated by commas or white space.
    ///
    /// - Parameters:
    ///   - list: The list.
    ///   - source: What gave it, for messages: `the environment variable NO_PROXY`.
    /// - Throws: ``SluiceError`` naming an entry that is not a host, an address or a range, and where it came from.
    package init(parsing list: String, source: String) throws(SluiceError) {
        try self.init(entries: list.split { $0 == "," || $0.isWhitespace }.map(String.init), source: source)
    }

    /// Reads a list of entries.
    ///
    /// - Parameters:
    ///   - entries: The entries; empty ones are skipped.
    ///   - source: What gave them, for messages.
    /// - Throws: ``SluiceError`` naming an entry that is not a host, an address or a range, and where it came from.
    package init(entries: [String], source: String) throws(SluiceError) {
        for entry in entries {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            guard let rule = Self.rule(trimmed) else {
                throw SluiceError(
                    .transport,
                    message:
                        "the entry \"\(trimmed)\" in \(source) is not a host name, an IP address or a CIDR range, with an optional port",
                    underlyingError: URLError(.badURL)
                )
            }
            rules.append(rule)
        }
    }

    /// Whether a request to a host and port goes directly.
    ///
    /// - Parameters:
    ///   - host: The URL's host, as it spells it (an IPv6 address with or without brackets).
    ///   - port: The URL's port, or its scheme's default.
    /// - Returns: `true` when an entry matches.
    package func matches(host: String, port: Int) -> Bool {
        guard !rules.isEmpty else { return false }
        let name = Self.normalized(host)
        let address = SocketAddress.numeric(host: name, port: 0)?.ipBytes
        return rules.contains { rule in
            if let rulePort = rule.port, rulePort != port {
                return false
            }
            switch rule.pattern {
            case .everything:
                return true
            case .domain(let domain):
                return name == domain || name.hasSuffix("." + domain)
            case .network(let bytes, let prefixLength):
                guard let address, address.count == bytes.count else { return false }
                return Self.prefix(of: address, prefixLength) == Self.prefix(of: bytes, prefixLength)
            }
        }
    }

    /// A host without brackets, a trailing dot or capitals.
    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        while host.hasSuffix(".") {
            host.removeLast()
        }
        return host
    }

    /// The rule an entry states, or `nil` when it states none.
    private static func rule(_ entry: String) -> Rule? {
        if entry == "*" {
            return Rule(pattern: .everything)
        }
        var body = Substring(entry)
        var port: Int?
        if body.hasPrefix("[") {
            // [v6], [v6]:port or [v6]/prefix.
            guard let close = body.firstIndex(of: "]") else { return nil }
            let after = body[body.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65_535).contains(number) else { return nil }
                port = number
                body = body[...close]
            } else if !after.isEmpty && !after.hasPrefix("/") {
                return nil
            }
            body = body.dropFirst()
            body.remove(at: body.firstIndex(of: "]") ?? body.endIndex)
        } else if body.filter({ $0 == ":" }).count == 1, let colon = body.firstIndex(of: ":") {
            // name:port or v4:port; an IPv6 address has two colons at least.
            guard let number = Int(body[body.index(after: colon)...]), (1...65_535).contains(number) else {
                return nil
            }
            port = number
            body = body[..<colon]
        }
        if let slash = body.firstIndex(of: "/") {
            guard let bytes = SocketAddress.numeric(host: String(body[..<slash]), port: 0)?.ipBytes,
                let length = Int(body[body.index(after: slash)...]), (0...bytes.count * 8).contains(length)
            else { return nil }
            return Rule(pattern: .network(bytes: bytes, prefixLength: length), port: port)
        }
        if let bytes = SocketAddress.numeric(host: String(body), port: 0)?.ipBytes {
            return Rule(pattern: .network(bytes: bytes, prefixLength: bytes.count * 8), port: port)
        }
        var name = normalized(String(body))
        if name.hasPrefix("*.") {
            name.removeFirst(2)
        }
        while name.hasPrefix(".") {
            name.removeFirst()
        }
        let allowed = name.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_")
        }
        guard !name.isEmpty, allowed else { return nil }
        return Rule(pattern: .domain(name), port: port)
    }

    /// The first `length` bits of an address, the rest set to zero.
    private static func prefix(of bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, length - index * 8))
            return bits == 8 ? byte : byte & ~(UInt8.max >> bits)
        }
    }
}
