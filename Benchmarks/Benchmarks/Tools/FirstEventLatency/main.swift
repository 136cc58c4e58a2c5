// How long a server-sent event takes to reach a `for try await` loop over `client.events(_:)` after the server wrote
// it, on loopback: `swift run -c release FirstEventLatency`.
//
// A plain socket server on a thread of its own writes each event with the monotonic time of the write in its data;
// the client reads the same clock when the event arrives. The first event is written as soon as the head is, so its
// figure is the time to first event; the rest show the steady state.
import Foundation
import Sluice

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The monotonic clock in nanoseconds, the same in both threads.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

let eventCount = 200
let interval: useconds_t = 5_000

/// Listens on a free loopback port and serves one event stream to each connection.
func startServer() -> UInt16 {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            precondition(bind(listener, socketAddress, length) == 0, "bind failed")
            precondition(getsockname(listener, socketAddress, &length) == 0, "getsockname failed")
        }
    }
    precondition(listen(listener, 8) == 0, "listen failed")
    let thread = Thread {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // Read the request head, then answer.
            var buffer = [UInt8](repeating: 0, count: 4_096)
            var request: [UInt8] = []
            while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let count = read(connection, &buffer, buffer.count)
                guard count > 0 else { break }
                request += buffer[0..<count]
            }
            func send(_ text: String) {
                var bytes = Array(text.utf8)
                _ = write(connection, &bytes, bytes.count)
            }
            send(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
            )
            for _ in 0..<eventCount {
                let event = "data: \(monotonicNanoseconds())\n\n"
                send(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                usleep(interval)
            }
            send("0\r\n\r\n")
            close(connection)
        }
    }
    thread.start()
    return UInt16(bigEndian: address.sin_port)
}

struct Feed: Request {
    typealias ResponseObject = Data
    let url: URL

    func build() throws -> URLRequest {
        URLRequest(url: url)
    }
}

let port = startServer()
let client = APIClient()
guard let url = URL(string: "http://127.0.0.1:\(port)/events") else { fatalError("no URL for port \(port)") }
let feed = Feed(url: url)
// One stream to warm the connection pool and the code paths, one measured.
for round in 0..<2 {
    var latencies: [Double] = []
    for try await event in try await client.events(feed, reconnecting: nil) {
        let arrived = monotonicNanoseconds()
        guard let written = UInt64(event.data) else { fatalError("an event without a time: \(event.data)") }
        latencies.append(Double(arrived - written) / 1_000_000)
    }
    guard round == 1 else { continue }
    let first = latencies[0]
    let sorted = latencies.dropFirst().sorted()
    func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    print(String(format: "first event: %.3f ms after the server wrote it", first))
    print(
        String(
            format: "next %d events: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
            sorted.count,
            percentile(0.5),
            percentile(0.99),
            sorted.last ?? 0
        )
    )
}
