import Foundation
import SluiceCore
import SluiceTesting
import SluiceTransport
import Testing

/// What each transport says it adds to a request (`requestAsSent(_:)`), for a cache above it to match `Vary` on.
@Suite struct RequestAsSentTests {
    @Test func theSocketTransportSaysWhatItAdds() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/login") { _ in
            LoopbackServer.Response.text("in").addingHeader("Set-Cookie", "session=alice; Path=/")
        }
        let performer = SocketRequestPerformer()
        var request = URLRequest(url: server.url("/profile"))
        let before = performer.requestAsSent(request)
        #expect(before.value(forHTTPHeaderField: "Cookie") == nil)
        #expect(before.value(forHTTPHeaderField: "User-Agent") == "Sluice")
        let codings = SocketRequestPerformer.decodedContentCodings
        #expect(
            before.value(forHTTPHeaderField: "Accept-Encoding")
                == (codings.isEmpty ? nil : codings.joined(separator: ", "))
        )
        _ = try await performer.perform(URLRequest(url: server.url("/login")))
        #expect(performer.requestAsSent(request).value(forHTTPHeaderField: "Cookie") == "session=alice")
        // The request's own fields stay as they are.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.setValue("catalog", forHTTPHeaderField: "User-Agent")
        let own = performer.requestAsSent(request)
        #expect(own.value(forHTTPHeaderField: "Accept-Encoding") == "identity")
        #expect(own.value(forHTTPHeaderField: "User-Agent") == "catalog")
        let plain = SocketRequestPerformer(configuration: .init(decompressesBodies: false, cookies: .disabled))
        #expect(
            plain.requestAsSent(URLRequest(url: server.url("/x"))).value(forHTTPHeaderField: "Accept-Encoding") == nil
        )
    }

    @Test func urlSessionsTransportSaysWhichCookiesItAdds() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        server.route("GET", "/login") { _ in
            LoopbackServer.Response.text("in").addingHeader("Set-Cookie", "session=alice; Path=/deep")
        }
        let performer = NetworkRequestPerformer()
        var request = URLRequest(url: server.url("/profile"))
        #expect(performer.requestAsSent(request) == request)
        _ = try await performer.perform(URLRequest(url: server.url("/login")))
        // Every cookie of the host, whatever its path: at least what URLSession sends.
        #expect(performer.requestAsSent(request).value(forHTTPHeaderField: "Cookie") == "session=alice")
        request.setValue("own=1", forHTTPHeaderField: "Cookie")
        #expect(performer.requestAsSent(request).value(forHTTPHeaderField: "Cookie") == "own=1; session=alice")
    }
}
