import Foundation
import Sluice
import SluiceTesting

/// The demo's little user directory, served by the loopback server.
enum Catalog {
    static let users = #"""
        [{"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "joined_at": "1843-07-10T09:00:00Z"},
         {"id": 2, "name": "Grace Hopper", "email": "grace@example.com", "joined_at": "1952-05-01T09:00:00Z"},
         {"id": 3, "name": "Alan Turing", "email": null, "joined_at": "1936-11-12T09:00:00Z"}]
        """#

    /// The size of the archive the tour downloads.
    static let archiveSize: Int64 = 8 << 20

    static func install(on server: LoopbackServer) {
        server.route("GET", "/users", response: .json(users))
        server.route("POST", "/users") { request in
            // Echo the posted user with the id the server gives it.
            let posted = request.bodyText.dropFirst().dropLast()
            return .json("{\"id\": 4, \(posted)}", status: 201)
        }
        server.route("GET", "/users/42", response: .json(#"{"message": "no user with id 42"}"#, status: 404))
        server.route(
            "GET",
            "/reports/slow",
            response: LoopbackServer.Response(body: Data("{}".utf8), delay: .seconds(10))
        )
        server.route("GET", "/broken", response: .json(#"{"id": 1, "name": "Ada",, "email": null}"#))
        // An 8 MiB archive that can be resumed; its first download is cut at 3 MiB.
        let downloads = Locked(0)
        server.route("GET", "/archive") { _ in
            let archive = LoopbackServer.Response.generated(
                byteCount: archiveSize,
                chunkSize: 64 << 10,
                pause: .milliseconds(4)
            )
            .servingRanges(etag: "archive-v1")
            let attempt = downloads.withLock { count in
                count += 1
                return count
            }
            return attempt == 1 ? archive.injecting(.closeMidBody(afterBytes: 3 << 20)) : archive
        }
        // A price feed: one event now, then one every 200 ms.
        server.route(
            "GET",
            "/prices",
            response: .serverSentEvents(
                [41.5, 41.75, 42.0, 41.9].enumerated().map { index, price in
                    LoopbackServer.Response.SentEvent(
                        event: "price",
                        data: #"{"symbol": "ACME", "price": \#(price)}"#,
                        id: String(index + 1),
                        after: index == 0 ? .zero : .milliseconds(200)
                    )
                }
            )
        )
    }
}
