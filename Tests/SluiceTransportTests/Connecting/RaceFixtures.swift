import ClientFixtures
import Foundation
import Testing

@testable import SluiceTransport

// Sockets come from the C library, which is Darwin on Apple platforms and Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A TCP socket listening on a loopback address, at a port the system picks, that never accepts: the kernel completes
/// connections into its queue, and, once the queue is full, answers no more (the SYNs are dropped), which is what an
/// address behind a filter that drops packets looks like to a client.
struct Listener {
    let socket: Socket
    /// Where it listens.
    let address: SocketAddress

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - host: A loopback address, `127.0.0.1` or `::1`.
    ///   - backlog: The queue's length; with 0 one connection fills it.
    /// - Throws: ``SocketError`` naming the call that failed.
    init(on host: String, backlog: Int32 = 16) throws {
        let any = try #require(SocketAddress.numeric(host: host, port: 0))
        let socket = try Socket.stream(family: any.family)
        do {
            let bound = any.withSockaddr { bind(socket.descriptor, $0, $1) }
            guard bound == 0 else { throw SocketError("bind", errno: errno) }
            guard listen(socket.descriptor, backlog) == 0 else { throw SocketError("listen", errno: errno) }
            var storage = sockaddr_in6()
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            let named = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getsockname(socket.descriptor, $0, &length)
                }
            }
            guard named == 0 else { throw SocketError("getsockname", errno: errno) }
            // sin_port and sin6_port sit at the same offset.
            let port = Int(UInt16(bigEndian: storage.sin6_port))
            address = try #require(SocketAddress.numeric(host: host, port: port))
        } catch {
            socket.closeDescriptor()
            throw error
        }
        self.socket = socket
    }

    /// Connects a socket of the test's own and waits until the kernel has queued it, so that with a backlog of 0 the
    /// queue is full and the next connection gets no answer.
    ///
    /// - Returns: The connected socket, to close after the test.
    func fill() throws -> Socket {
        let client = try Socket.stream(family: address.family)
        if try !client.connect(to: address) {
            var ready = pollfd(fd: client.descriptor, events: Int16(POLLOUT), revents: 0)
            let count = poll(&ready, 1, 10_000)
            try #require(
                count == 1 && client.pendingError() == 0,
                "the connection that fills the queue did not come up"
            )
        }
        return client
    }

    /// An address where nothing listens: connecting to it is refused at once.
    static func refusing(on host: String) throws -> SocketAddress {
        let listener = try Listener(on: host)
        listener.close()
        return listener.address
    }

    func close() {
        socket.closeDescriptor()
    }
}

/// An address on loopback that never answers.
///
/// It is a listener whose queue one connection of the test's own fills. Its sockets close with it; keep it alive
/// (`withExtendedLifetime`) while the test connects.
final class UnansweredAddress: Sendable {
    private let listener: Listener
    private let filler: Socket
    var address: SocketAddress { listener.address }

    /// Listens on `host`, `127.0.0.1` or `::1`, and fills the queue.
    ///
    /// - Throws: ``SocketError`` naming the call that failed.
    init(on host: String) throws {
        listener = try Listener(on: host, backlog: 0)
        do {
            filler = try listener.fill()
        } catch {
            listener.close()
            throw error
        }
    }

    deinit {
        filler.closeDescriptor()
        listener.close()
    }
}

/// A network namespace that drops what is routed to it: a prefix whose SYNs are never answered.
///
/// It is joined to this one by a pair of virtual Ethernet devices, with a route through them to the prefix; it does
/// not forward, so what it is sent for the prefix is dropped, and connecting hangs until the attempt gives up.
/// Deleting the namespace deletes the devices and the route with them.
///
/// Making one takes `CAP_NET_ADMIN` (root, as CI runs) and the `ip` command.
struct DroppingNamespace {
    /// An address in the prefix whose packets are dropped.
    static let droppedHost = "2001:db8:5c:dead::1"

    let name: String

    /// Whether this process can make one: a namespace made and deleted at once says so (it takes `CAP_NET_ADMIN`).
    static let isPossible: Bool = {
        let probe = "sluice-he-probe-\(getpid())"
        guard run(["netns", "add", probe]) == nil else { return false }
        return run(["netns", "delete", probe]) == nil
    }()

    /// Whether the tests that need one fail rather than skip without it (`SLUICE_REQUIRE_PEERS=1`).
    static let isRequired = ProcessInfo.processInfo.environment["SLUICE_REQUIRE_PEERS"] == "1"

    private static let ipCommand = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Makes the namespace, or says why it could not.
    static func make() -> Result<DroppingNamespace, NamespaceUnavailable> {
        let suffix = String(getpid() % 100_000)
        let namespace = DroppingNamespace(name: "sluice-he-\(suffix)")
        let (host, peer) = ("she\(suffix)a", "she\(suffix)b")
        let inside = ["netns", "exec", namespace.name, "ip"]
        let steps = [
            ["netns", "add", namespace.name],
            ["link", "add", host, "type", "veth", "peer", "name", peer],
            ["link", "set", peer, "netns", namespace.name],
            ["-6", "addr", "add", "2001:db8:5c:1::1/64", "dev", host, "nodad"],
            ["link", "set", host, "up"],
            inside + ["-6", "addr", "add", "fe80::5c:2/64", "dev", peer, "nodad"],
            inside + ["link", "set", peer, "up"],
            ["-6", "route", "add", "2001:db8:5c:dead::/64", "via", "fe80::5c:2", "dev", host],
        ]
        for step in steps {
            if let failure = run(step) {
                namespace.delete()
                return .failure(failure)
            }
        }
        return .success(namespace)
    }

    /// Deletes the namespace, its devices and the route through them.
    func delete() {
        _ = Self.run(["netns", "delete", name])
        _ = Self.run(["link", "delete", "she\(name.dropFirst("sluice-he-".count))a"])
    }

    /// Runs `ip` with arguments; `nil` when it exited with 0.
    private static func run(_ arguments: [String]) -> NamespaceUnavailable? {
        guard let ip = ipCommand else { return NamespaceUnavailable(description: "the ip command is missing") }
        do {
            let process = try ChildProcess(URL(fileURLWithPath: ip), arguments)
            guard process.waitUntilExit(timeout: .seconds(30)), process.terminationStatus == 0 else {
                return NamespaceUnavailable(
                    description:
                        "ip \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus ?? -1))"
                )
            }
            return nil
        } catch {
            return NamespaceUnavailable(description: "\(error)")
        }
    }
}

/// Why a network namespace could not be made.
struct NamespaceUnavailable: Error, CustomStringConvertible {
    let description: String
}
