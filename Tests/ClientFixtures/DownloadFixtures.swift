package import Foundation
package import SluiceCore
package import SluiceTesting

/// A directory of its own for one test's files, removed with everything in it when the test drops it.
package final class ScratchDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// A file in the directory.
    package func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// The names of the files in the directory, sorted.
    package var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// The size of a file in the directory, or `nil` when it does not exist.
    package func size(of name: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file(name).path))?[.size] as? Int
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A file served as a server with range support serves it: a `206` with its `Content-Range` for a `Range: bytes=N-`
/// whose `If-Range` matches the file's validator, a `416` for a range past its end, a `200` otherwise; each response
/// with the next of the faults the test asks for.
package final class RangedFile: Sendable {
    package let content: Data
    package let validators: [HTTPHeaders.Field]
    private let faults: Locked<[LoopbackServer.Response.Fault?]>

    package init(_ content: Data, validators: [HTTPHeaders.Field] = [], faults: [LoopbackServer.Response.Fault?] = []) {
        self.content = content
        self.validators = validators
        self.faults = Locked(faults)
    }

    package func respond(to request: LoopbackServer.Request) -> LoopbackServer.Response {
        var response = answer(request)
        response.fault = faults.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        return response
    }

    private func answer(_ request: LoopbackServer.Request) -> LoopbackServer.Response {
        let full = LoopbackServer.Response(status: 200, headers: validators, body: content)
        guard let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst("bytes=".count).dropLast())
        else { return full }
        if let ifRange = request.header("If-Range"), !validators.contains(where: { $0.value == ifRange }) {
            return full
        }
        guard start < content.count else {
            return LoopbackServer.Response(status: 416, headers: [.init("Content-Range", "bytes */\(content.count)")])
        }
        return LoopbackServer.Response(
            status: 206,
            headers: validators + [
                HTTPHeaders.Field("Content-Range", "bytes \(start)-\(content.count - 1)/\(content.count)")
            ],
            body: content.subdata(in: start..<content.count)
        )
    }
}
