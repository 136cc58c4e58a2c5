// What the loopback server's test suites share: a URLSession that fails fast, and a raw socket client for what
// URLSession cannot express (malformed requests, pipelining, HTTP/1.0, reading exactly what the server sent).
import Foundation
package import SluiceCore
package import SluiceTesting
import Testing

// URLSession lives in FoundationNetworking on Linux; Apple platforms ship it inside Foundation.
#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif

// Raw sockets come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A fresh session per test, so that no connection is reused between tests, with timeouts that fail fast.
package func makeSession(maximumConnections: Int = 6) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 15
    configuration.timeoutIntervalForResource = 30
    configuration.httpMaximumConnectionsPerHost = maximumConnections
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    return URLSession(configuration: configuration)
}

/// Checks over a new raw connection that the server still answers normally.
package func expectServerStillAnswers(_ server: LoopbackServer, path: String = "/check") throws {
    let client = try RawClient(port: server.port)
    try client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
    #expect(try client.readResponse().status == 200)
}

/// An error from the raw test client.
package struct RawClientError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// A response as the raw client read it.
package struct RawResponse {
    package var status = 0
    package var headers: [(name: String, value: String)] = []
    package var body: [UInt8] = []
    package var chunkCount = 0

    package var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What one `recv` returned.
package enum ReadOutcome: Equatable {
    case bytes(Int)
    case endOfStream
    case failed(Int32)
}

/// A blocking HTTP/1.1 client on a plain socket, for what URLSession cannot express.
///
/// Every read and write times out after 10 seconds, so a broken server fails the test instead of hanging it.
package final class RawClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to a loopback port; a read or write that waits longer than `timeout` seconds fails.
    package convenience init(port: Int, timeout seconds: Int = 10) throws {
        guard let address = SocketAddress.numeric(host: "127.0.0.1", port: port) else {
            throw RawClientError("no address for port \(port)")
        }
        try self.init(address: address, timeout: seconds)
    }

    /// Connects to an address, over TCP or a Unix domain socket; a read or write that waits longer than `timeout`
    /// seconds fails.
    package init(address: SocketAddress, timeout seconds: Int = 10) throws {
        // Darwin declares SOCK_STREAM as an Int32; Glibc imports it as a member of the __socket_type enum.
        #if canImport(Darwin)
        descriptor = socket(address.family, SOCK_STREAM, 0)
        #else
        descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else {
            throw RawClientError("socket failed: errno \(errno)")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, size)
        // Darwin has no MSG_NOSIGNAL, so SIGPIPE is suppressed per socket instead.
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let result = address.withSockaddr { connect(descriptor, $0, $1) }
        guard result == 0 else {
            // Not closed here: the client is fully initialized, so deinit runs and closes it. Closing it twice could
            // close a descriptor another thread has just been given.
            throw RawClientError("connect failed: errno \(errno)")
        }
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
        }
    }

    /// Sets the size of the socket's receive buffer, so that a client that stops reading makes the server wait soon.
    package func setReceiveBufferSize(_ bytes: Int32) {
        var size = bytes
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    package func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    package func send(_ bytes: [UInt8]) throws {
        // Linux suppresses SIGPIPE per call; Darwin does it with SO_NOSIGPIPE, set in init.
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { sendToSocket(descriptor, $0, flags) }
            if sent < 0 && errno == EINTR {
                continue
            }
            guard sent > 0 else {
                throw RawClientError("send failed: errno \(errno)")
            }
            offset += sent
        }
    }

    package func shutdownWriting() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads once into the buffer.
    package func readOnce() -> ReadOutcome {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return .bytes(count)
            }
            if count == 0 {
                return .endOfStream
            }
            if errno != EINTR {
                return .failed(errno)
            }
        }
    }

    /// What has arrived and not been taken yet, reading once when nothing has: empty at the end of the stream, on an
    /// error or at the timeout.
    package func readAvailable() -> [UInt8] {
        if buffer.isEmpty {
            _ = readOnce()
        }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Every byte until the server closes (or an error or the timeout), including anything already buffered.
    package func readToEnd() -> [UInt8] {
        while case .bytes = readOnce() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads one response, de-chunking its body.
    package func readResponse(toHeadRequest: Bool = false) throws -> RawResponse {
        var response = try readHead()
        if toHeadRequest || (100..<200).contains(response.status) || response.status == 204 || response.status == 304 {
            return response
        }
        if response.header("Transfer-Encoding") == "chunked" {
            while let chunk = try readChunk() {
                response.body += chunk
                response.chunkCount += 1
            }
            return response
        }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readBytes(length)
        } else {
            response.body = readToEnd()
        }
        return response
    }

    /// Reads the status line and header fields of a response, and nothing of its body.
    package func readHead() throws -> RawResponse {
        var response = RawResponse()
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw RawClientError("bad status line: \(statusLine.debugDescription)")
        }
        response.status = status
        while true {
            let line = try readLine()
            if line.isEmpty {
                break
            }
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else {
                throw RawClientError("bad header line: \(line.debugDescription)")
            }
            response.headers.append((String(pair[0]), pair[1].trimmingCharacters(in: .whitespaces)))
        }
        return response
    }

    /// Reads one chunk of a chunked body, or `nil` after the final zero-size chunk (and the empty trailer).
    package func readChunk() throws -> [UInt8]? {
        guard let size = Int(try readLine(), radix: 16) else {
            throw RawClientError("bad chunk size")
        }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        defer { _ = try? readLine() }
        return try readBytes(size)
    }

    /// Reads exactly `count` bytes, counting what is already buffered.
    package func readBytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard case .bytes = readOnce() else {
                throw RawClientError("connection ended before \(count) body bytes")
            }
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<index], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            switch readOnce() {
            case .bytes:
                continue
            case .endOfStream:
                throw RawClientError("connection ended before a full line")
            case .failed(let code) where code == EAGAIN || code == EWOULDBLOCK:
                throw RawClientError("no full line within the read timeout")
            case .failed(let code):
                throw RawClientError("connection failed before a full line: errno \(code)")
            }
        }
    }
}

/// Calls the C library's `send`, which the client's own `send` method would shadow.
package func sendToSocket(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, _ flags: Int32) -> Int {
    send(descriptor, bytes.baseAddress, bytes.count, flags)
}
