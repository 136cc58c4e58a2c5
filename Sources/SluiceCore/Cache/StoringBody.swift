/// A streamed body that hands each chunk on as it arrives and writes it to a cache entry, which is stored when the
/// body ends complete and within the limit: a body that fails, is left early or passes the limit is not stored.
struct StoringBody: AsyncSequence, Sendable {
    typealias Element = Data

    let body: HTTPBody
    let writer: any CacheBodyWriter
    let limit: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(inner: body.makeAsyncIterator(), writer: writer, limit: limit)
    }

    struct Iterator: AsyncIteratorProtocol {
        var inner: HTTPBody.AsyncIterator
        var writer: (any CacheBodyWriter)?
        let limit: Int
        var written = 0

        mutating func next() async throws -> Data? {
            let chunk: Data?
            do {
                chunk = try await inner.next()
            } catch {
                writer?.discard()
                writer = nil
                throw error
            }
            guard let chunk else {
                if let writer {
                    do { try writer.commit() } catch { writer.discard() }
                }
                writer = nil
                return nil
            }
            if let writer {
                written += chunk.count
                // Past the limit, or when the store fails, the body goes on and the entry is dropped.
                if written > limit || (try? writer.write(chunk)) == nil {
                    writer.discard()
                    self.writer = nil
                }
            }
            return chunk
        }
    }
}
