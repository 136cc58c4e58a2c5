import Foundation
import SluiceTesting

/// The demo's little user directory, served by the loopback server.
enum Catalog {
    static let users = #"""
        [{"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "joined_at": "1843-07-10T09:00:00Z"},
         {"id": 2, "name": "Grace Hopper", "email": "grace@example.com", "joined_at": "1952-05-01T09:00:00Z"},
         {"id": 3, "name": "Alan Turing", "email": null, "joined_at": "1936-11-12T09:00:00Z"}]
        """#

    static func install(on server: LoopbackServer) {
        server.route("GET", "/users", response: .json(users))
        server.route("POST", "/users") { request in
            // Echo the posted user with the id the server gives it.
            let posted = request.bodyText.dropFirst().dropLast()
            return .json("{\"id\": 4, \(posted)}", status: 201)
        }
        server.route("GET", "/users/42", response: .json(#"{"message": "no user with id 42"}"#, status: 404))
        server.route("GET", "/reports/slow", response: LoopbackResponse(body: Data("{}".utf8), delay: .seconds(10)))
        server.route("GET", "/broken", response: .json(#"{"id": 1, "name": "Ada",, "email": null}"#))
        // A price feed: one event now, then one every 200 ms.
        server.route(
            "GET",
            "/prices",
            response: .serverSentEvents(
                [41.5, 41.75, 42.0, 41.9].enumerated().map { index, price in
                    LoopbackResponse.ServerSentEvent(
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
