import Foundation

// Addresses and name resolution come from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Where a socket connects: an IPv4 or IPv6 address and port, or the path of a Unix domain socket.
package enum SocketAddress: Sendable, CustomStringConvertible {
    /// An IPv4 address and port.
    case ipv4(sockaddr_in)
    /// An IPv6 address and port.
    case ipv6(sockaddr_in6)
    /// A Unix domain socket's path.
    case unix(String)

    /// The address family, for ``Socket/stream(family:)``.
    package var family: Int32 {
        switch self {
        case .ipv4: AF_INET
        case .ipv6: AF_INET6
        case .unix: AF_UNIX
        }
    }

    /// The address as text: `127.0.0.1:8080`, `[::1]:8080` or the socket's path.
    package var description: String {
        switch self {
        case .ipv4: "\(host):\(port)"
        case .ipv6: "[\(host)]:\(port)"
        case .unix(let path): path
        }
    }

    /// The address without its port: `127.0.0.1`, `::1` or the socket's path.
    package var host: String {
        switch self {
        case .ipv4(var address):
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
            return Self.text(text)
        case .ipv6(var address):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            _ = inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
            return Self.text(text)
        case .unix(let path):
            return path
        }
    }

    /// The text `inet_ntop` wrote, up to its terminating zero.
    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with the address as a `sockaddr` and its length.
    package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch self {
        case .ipv4(var address):
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6(var address):
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        case .unix(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            // Only BSD-derived systems have (and want) the length fields.
            #if canImport(Darwin)
            address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
            #endif
            let capacity = MemoryLayout.size(ofValue: address.sun_path)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(path.utf8.prefix(capacity - 1))
                raw.copyBytes(from: bytes)
            }
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
    }

    /// The longest Unix socket path the system takes, in bytes (107 on Linux, 103 on Darwin).
    package static var maximumUnixPathLength: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }

    /// The address a numeric host names, without asking a resolver: `127.0.0.1`, `::1` or `[::1]`.
    ///
    /// - Parameters:
    ///   - host: The host, as a URL gives it.
    ///   - port: The port.
    /// - Returns: The address, or `nil` when the host is a name.
    package static func numeric(host: String, port: Int) -> SocketAddress? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, bare, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
            #if canImport(Darwin)
            v4.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            return .ipv4(v4)
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(truncatingIfNeeded: port).bigEndian
            #if canImport(Darwin)
            v6.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            return .ipv6(v6)
        }
        return nil
    }

    /// The IP address's bytes in network order, 4 for IPv4 and 16 for IPv6; `nil` for a Unix socket.
    package var ipBytes: [UInt8]? {
        switch self {
        case .ipv4(var address): withUnsafeBytes(of: &address.sin_addr) { Array($0) }
        case .ipv6(var address): withUnsafeBytes(of: &address.sin6_addr) { Array($0) }
        case .unix: nil
        }
    }

    /// The port, for a TCP address; 0 for a Unix socket.
    package var port: Int {
        switch self {
        case .ipv4(let address): Int(UInt16(bigEndian: address.sin_port))
        case .ipv6(let address): Int(UInt16(bigEndian: address.sin6_port))
        case .unix: 0
        }
    }

    /// The addresses a host name resolves to, in the resolver's order of preference, resolved on a thread of its own
    /// so that the blocking `getaddrinfo` holds up neither the event loop, nor Swift's cooperative threads, nor
    /// Dispatch's (whose pool for the global queues does not grow when its threads block).
    ///
    /// - Parameters:
    ///   - host: The host name or numeric address.
    ///   - port: The port.
    /// - Returns: At least one address.
    /// - Throws: ``SocketError`` with the call `getaddrinfo` and its error text when the name does not resolve.
    package static func resolve(host: String, port: Int) async throws -> [SocketAddress] {
        if let address = numeric(host: host, port: port) {
            return [address]
        }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try lookUp(host: host, port: port) })
            }
        }
    }

    /// Runs `getaddrinfo` for TCP addresses of a host.
    private static func lookUp(host: String, port: Int) throws(ResolutionError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw ResolutionError(host: host, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let raw = current.pointee.ai_addr {
                switch current.pointee.ai_family {
                case AF_INET:
                    addresses.append(.ipv4(UnsafeRawPointer(raw).load(as: sockaddr_in.self)))
                case AF_INET6:
                    addresses.append(.ipv6(UnsafeRawPointer(raw).load(as: sockaddr_in6.self)))
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw ResolutionError(host: host, message: "no IPv4 or IPv6 address")
        }
        return addresses
    }
}

/// A host name that did not resolve.
package struct ResolutionError: Error, Sendable, CustomStringConvertible {
    /// The name.
    package let host: String
    /// The resolver's words for the failure.
    package let message: String

    /// The name and why it did not resolve.
    package var description: String {
        "could not resolve \(host): \(message)"
    }
}

extension SocketAddress {
    /// A host and port as an authority: `example.com:443`, an IPv6 address in brackets (`[::1]:443`).
    static func authority(host: String, port: Int) -> String {
        "\(bracketed(host)):\(port)"
    }

    /// A host as a URL or a field writes it: an IPv6 address (the only kind of host with a colon) in brackets, once.
    static func bracketed(_ host: String) -> String {
        host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
