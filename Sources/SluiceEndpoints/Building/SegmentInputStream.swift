/// An input stream over runs of bytes and files, read in order; files are read from disk as bytes are asked for.
///
/// A stream is made afresh for each request attempt and read by the transport alone.
final class SegmentInputStream: InputStream {
    enum Segment: Sendable {
        case bytes(Data)
        case file(URL, size: Int)
    }

    private let segments: [Segment]
    private var index = 0
    private var offset = 0
    private var file: FileHandle?
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?

    init(_ segments: [Segment]) {
        self.segments = segments
        super.init(data: Data())
    }

    override var streamStatus: Stream.Status { status }

    override var streamError: (any Error)? { failure }

    override func open() {
        status = .open
    }

    override func close() {
        try? file?.close()
        file = nil
        status = .closed
    }

    override var hasBytesAvailable: Bool {
        status == .open && index < segments.count
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let data):
                let count = min(length, data.count - offset)
                if count > 0 {
                    data.copyBytes(to: buffer, from: data.startIndex + offset..<data.startIndex + offset + count)
                    offset += count
                    return count
                }
            case .file(let url, _):
                do {
                    if file == nil {
                        file = try FileHandle(forReadingFrom: url)
                    }
                    if let chunk = try file?.read(upToCount: min(length, 64 << 10)), !chunk.isEmpty {
                        chunk.copyBytes(to: buffer, count: chunk.count)
                        return chunk.count
                    }
                    try file?.close()
                    file = nil
                } catch {
                    failure = error
                    status = .error
                    return -1
                }
            }
            index += 1
            offset = 0
        }
        status = .atEnd
        return 0
    }
}
