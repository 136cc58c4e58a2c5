import Foundation
import Sluice
import SluiceTesting

/// The steps of the tour, each printing what it did and what each stage took.
struct Tour {
    let server: LoopbackServer
    let client = APIClient()

    func run() async {
        await step(1, "GET /users: a list decoded into models") {
            let response = try await client.response(for: ListUsers(baseURL: server.baseURL))
            let names = response.value.map { "\($0.name) (joined \($0.joinedAt.formatted(.iso8601.year())))" }
            print("   -> \(response.value.count) users: \(names.joined(separator: ", "))")
            print("   stages: \(response.metrics)")
        }
        await step(2, "POST /users: a JSON body, a 201 decoded into the created model") {
            let new = NewUser(
                name: "Katherine Johnson",
                email: "katherine@example.com",
                joinedAt: Date(timeIntervalSince1970: 0)
            )
            let response = try await client.response(for: CreateUser(baseURL: server.baseURL, user: new))
            print("   -> \(response.http.status): user \(response.value.id), \(response.value.name)")
            print("   sent \(response.metrics.requestBodyBytes) bytes: \(server.receivedRequests.last?.bodyText ?? "")")
            print("   stages: \(response.metrics)")
        }
        await step(3, "GET /users/42: a 404 with a decoded error body") {
            _ = try await client.perform(GetUser(baseURL: server.baseURL, id: 42))
        }
        await step(4, "GET /reports/slow: cancelled mid-flight after 100 ms") {
            let task = Task { try await client.perform(SlowReport(baseURL: server.baseURL)) }
            try await Task.sleep(for: .milliseconds(100))
            let start = ContinuousClock.now
            task.cancel()
            do {
                _ = try await task.value
            } catch {
                print("   (the task ended \(milliseconds(ContinuousClock.now - start)) after cancel())")
                throw error
            }
        }
        await step(5, "GET /broken: a malformed JSON body and its diagnostic") {
            _ = try await client.perform(Broken(baseURL: server.baseURL))
        }
        await step(6, "GET /prices: server-sent events, each printed as it arrives") {
            let start = ContinuousClock.now
            let events = try await client.events(PriceFeed(baseURL: server.baseURL), reconnecting: nil)
            print("   head after \(milliseconds(ContinuousClock.now - start)): \(events.response.status)")
            for try await event in events {
                let price = try JSONDocumentDecoder().decode(Price.self, from: Data(event.data.utf8))
                print(
                    "   +\(milliseconds(ContinuousClock.now - start)) \(event.type) #\(event.lastEventID): "
                        + "\(price.symbol) \(price.price)"
                )
            }
        }
        await step(7, "GET /archive: a download with a progress bar, cut at 3 MiB, then resumed") {
            try await download()
        }
    }

    /// Downloads the archive with a progress bar; the first attempt is cut, the second resumes it.
    private func download() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-tour-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("archive.bin")
        for attempt in 1...2 {
            let download = client.download(GetArchive(baseURL: server.baseURL), to: destination)
            let bar = ProgressBar()
            for await progress in download.progress {
                bar.show(progress)
            }
            do {
                let result = try await download.finished()
                bar.finish()
                let resumed = result.resumedFrom.map { ", resumed from byte \($0) with a 206" } ?? ""
                print("   attempt \(attempt): \(result.bytes) bytes in \(result.url.lastPathComponent)\(resumed)")
                return
            } catch {
                bar.finish()
                let partial =
                    (try? FileManager.default.attributesOfItem(atPath: destination.path + ".part")[.size]) ?? 0
                print("   attempt \(attempt): \(error.message)")
                print("   the partial file keeps \(partial) bytes for the next attempt")
            }
        }
    }

    private func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f ms", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
    }

    private func step(_ number: Int, _ title: String, _ body: () async throws -> Void) async {
        print("\(number). \(title)")
        do {
            try await body()
        } catch {
            print(error.localizedDescription.split(separator: "\n").map { "   " + $0 }.joined(separator: "\n"))
            if let error = error as? SluiceError {
                print("   stages: \(error.metrics)")
            }
        }
        print()
    }
}
