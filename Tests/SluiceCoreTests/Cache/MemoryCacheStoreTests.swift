import Foundation
import Testing

@testable import SluiceCore

/// The memory store on its own: a head looked up is served with its own body, even once a newer response replaced it.
@Suite struct MemoryCacheStoreTests {
    typealias F = CacheFixtures

    private func store(_ storage: MemoryCacheStorage, tag: String, body: String) throws {
        let writer = try #require(storage.writer(for: F.entry([.eTag: tag])))
        try writer.write(Data(body.utf8))
        try writer.commit()
    }

    @Test func servesAHeadWithItsOwnBody() async throws {
        let storage = MemoryCacheStorage(limit: 1 << 20)
        try store(storage, tag: "\"a\"", body: "first")
        let looked = try #require(storage.entries(for: F.url.absoluteString).first)
        try store(storage, tag: "\"b\"", body: "second")
        #expect(looked.headers[.eTag] == "\"a\"")
        #expect(try await storage.body(of: looked)?.collect() == Data("first".utf8))
        let now = try #require(storage.entries(for: F.url.absoluteString).first)
        #expect(now.headers[.eTag] == "\"b\"")
        #expect(try await storage.body(of: now)?.collect() == Data("second".utf8))
    }

    @Test func countsWhatItHolds() throws {
        let storage = MemoryCacheStorage(limit: 1 << 20)
        try store(storage, tag: "\"a\"", body: String(repeating: "x", count: 1000))
        let held = storage.totalCost
        #expect(held > 1000)
        try store(storage, tag: "\"b\"", body: String(repeating: "y", count: 1000))
        #expect(storage.totalCost == held)
        storage.removeEntries(for: F.url.absoluteString)
        #expect(storage.totalCost == 0)
    }
}
