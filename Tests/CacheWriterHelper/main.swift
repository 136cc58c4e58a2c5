// A child process for the disk cache's crash test: it stores entries in the directory it is given, one after another,
// writing each body in chunks, and prints each index once stored, until the test kills it.
import Foundation
import SluiceCore
import TestSupport

/// An origin that streams entry `index`'s body in chunks of 16 KB.
struct PatternOrigin: RequestPerformer {
    func perform(_ request: URLRequest) async throws -> HTTPResponse {
        try await stream(request).collect(upTo: .max)
    }

    func stream(_ request: URLRequest) async throws -> HTTPResponse.Streamed {
        let index = Int(request.url?.lastPathComponent ?? "") ?? 0
        let body = CacheEntryPattern.body(index)
        let chunks = stride(from: 0, to: body.count, by: 16_384).map {
            body.subdata(in: $0..<min($0 + 16_384, body.count))
        }
        let (stream, continuation) = AsyncStream<Data>.makeStream()
        for chunk in chunks {
            continuation.yield(chunk)
        }
        continuation.finish()
        return HTTPResponse.Streamed(status: .ok, headers: ["Cache-Control": "max-age=3600"], body: HTTPBody(stream))
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: CacheWriterHelper <directory> <first index>\n".utf8))
    exit(2)
}
let cache = HTTPCache(store: try .disk(at: URL(fileURLWithPath: arguments[1]), limit: 8 << 20))
let performer = PatternOrigin().cached(in: cache)
var index = first
while true {
    let response = try await performer.stream(URLRequest(url: CacheEntryPattern.url(index)))
    for try await _ in response.body {}
    FileHandle.standardOutput.write(Data("\(index)\n".utf8))
    index += 1
}
