import Foundation

/// A server on a free loopback port that takes requests with a `Content-Length` (the benchmark's `PUT /upload`), reads
/// each whole body, counts it, and only then answers `204 No Content` (or `400` when the count is short), keeping the connection for the next.
///
/// nginx's `return 204` answers before it reads the body, and discards the rest as it comes; a client that has its
/// answer stops sending, so an upload to it measures nothing. This server's answer comes after the last byte.
final class UploadSink: @unchecked Sendable {
    /// The server's base URL, `http://127.0.0.1:<port>`.
    let url: URL
    private let listener: Int32

    /// Starts listening and accepting, each connection on a thread of its own.
    ///
    /// - Throws: `BenchmarkError` when no socket could listen.
    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, listening, let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")
        else { throw BenchmarkError("the upload sink could not listen: errno \(errno)") }
        self.url = url
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { UploadSink.serve(client) }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Answers the requests of one connection until it closes.
    private static func serve(_ client: Int32) {
        defer { close(client) }
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        var pending: [UInt8] = []
        while true {
            // The head, up to its empty line.
            var headEnd: Int?
            while headEnd == nil {
                headEnd = pending.firstRange(of: [13, 10, 13, 10]).map { $0.upperBound }
                if headEnd == nil {
                    guard pending.count < 64 << 10 else { return }
                    let count = recv(client, &buffer, buffer.count, 0)
                    guard count > 0 else { return }
                    pending += buffer[0..<count]
                }
            }
            guard let headEnd else { return }
            let head = String(decoding: pending[0..<headEnd], as: UTF8.self).lowercased()
            pending.removeFirst(headEnd)
            let lengthLine = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            let length = lengthLine.flatMap {
                Int64($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            }
            guard let length else {
                _ = send(client, Self.answer("411 Length Required"), Self.answer("411 Length Required").count, 0)
                return
            }
            // The body, counted and dropped.
            var received = Int64(pending.count)
            pending.removeAll()
            while received < length {
                let count = recv(client, &buffer, Int(min(Int64(buffer.count), length - received)), 0)
                guard count > 0 else { return }
                received += Int64(count)
            }
            let answer = Self.answer(received == length ? "204 No Content" : "400 Bad Request")
            guard send(client, answer, answer.count, 0) == answer.count else { return }
        }
    }

    /// A response without a body.
    private static func answer(_ status: String) -> [UInt8] {
        Array("HTTP/1.1 \(status)\r\nContent-Length: 0\r\n\r\n".utf8)
    }
}
