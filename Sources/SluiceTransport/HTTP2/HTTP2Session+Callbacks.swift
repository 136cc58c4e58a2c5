import CSluiceSystem
import Foundation

// What nghttp2's callbacks do with what it found in the server's bytes, during ``HTTP2Session/receive(_:)`` and
// ``HTTP2Session/output()``: fields gathered per stream within the limits, frames turned into events, request bodies
// read for DATA frames.
extension HTTP2Session {

    func beginFields(on stream: Int32) {
        fields[stream] = ([], 0)
    }

    /// Adds a received field, or resets the stream when the section passes a limit.
    func field(
        on stream: Int32,
        name: UnsafeBufferPointer<UInt8>,
        value: UnsafeBufferPointer<UInt8>
    ) -> Int32 {
        guard var section = fields[stream] else { return 0 }
        section.size += name.count + value.count + 32
        guard section.size <= limits.maximumFieldListSize, section.list.count < limits.maximumFieldCount else {
            fields[stream] = nil
            failures[stream] = SluiceError(
                .transport,
                message:
                    "the response's HTTP/2 field section passed \(section.size > limits.maximumFieldListSize ? "\(limits.maximumFieldListSize) bytes" : "\(limits.maximumFieldCount) fields"), the most this client takes; the stream was reset",
                underlyingError: URLError(.cannotParseResponse)
            )
            // The stream is reset with an internal error; the others go on.
            return Int32(SLUICE_NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE)
        }
        section.list.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        fields[stream] = section
        return 0
    }

    func received(_ frame: UnsafePointer<SluiceH2FrameHeader>) -> Int32 {
        let header = frame.pointee
        let stream = header.stream_id
        let endsStream = header.flags & UInt8(SLUICE_NGHTTP2_FLAG_END_STREAM) != 0
        switch Int(header.type) {
        case SLUICE_NGHTTP2_HEADERS:
            guard let section = fields.removeValue(forKey: stream) else { break }
            if answered.contains(stream) {
                events.append(.trailers(stream: stream, fields: section.list))
            } else {
                // nghttp2 has checked the pseudo-fields (RFC 9113 section 8.3.2): `:status` comes first, three digits.
                let status = section.list.first { $0.name == ":status" }.flatMap { Int($0.value) } ?? 0
                // An interim response (1xx) is passed over; the final one follows on the same stream.
                guard !(100..<200).contains(status) else { break }
                answered.insert(stream)
                let fields = section.list.filter { $0.name != ":status" }
                events.append(.head(stream: stream, status: status, fields: fields))
            }
            if endsStream {
                events.append(.end(stream: stream))
            }
        case SLUICE_NGHTTP2_DATA:
            if endsStream {
                events.append(.end(stream: stream))
            }
        case SLUICE_NGHTTP2_SETTINGS:
            if header.flags & UInt8(SLUICE_NGHTTP2_FLAG_ACK) == 0 {
                events.append(.settings(maximumConcurrentStreams: maximumConcurrentStreams))
            }
        case SLUICE_NGHTTP2_RST_STREAM:
            frame.withMemoryRebound(to: SluiceH2ResetStream.self, capacity: 1) { reset in
                if reset.pointee.error_code == UInt32(SLUICE_NGHTTP2_REFUSED_STREAM) {
                    refusedStreams.insert(stream)
                }
                failures[stream] = SluiceError(
                    .transport,
                    message:
                        "the server reset the HTTP/2 stream with \(Self.errorName(reset.pointee.error_code)) (RFC 9113 section 7)",
                    underlyingError: URLError(.networkConnectionLost)
                )
            }
        case SLUICE_NGHTTP2_PING:
            if header.flags & UInt8(SLUICE_NGHTTP2_FLAG_ACK) != 0 {
                events.append(.pingAcknowledged)
            }
        case SLUICE_NGHTTP2_GOAWAY:
            frame.withMemoryRebound(to: SluiceH2GoAway.self, capacity: 1) { goAway in
                events.append(.goAway(lastStream: goAway.pointee.last_stream_id, errorCode: goAway.pointee.error_code))
            }
        default:
            break
        }
        return 0
    }

    func closed(_ stream: Int32, code: UInt32) {
        fields[stream] = nil
        answered.remove(stream)
        bodies[stream] = nil
        let failure = failures.removeValue(forKey: stream)
        if refusedStreams.remove(stream) != nil {
            events.append(.refused(stream: stream))
            return
        }
        guard code != UInt32(SLUICE_NGHTTP2_NO_ERROR) || failure != nil else {
            events.append(.closed(stream: stream, error: nil))
            return
        }
        events.append(
            .closed(
                stream: stream,
                error: failure
                    ?? SluiceError(
                        .transport,
                        message:
                            "the HTTP/2 stream was reset with \(Self.errorName(code)) for what the server sent on it (RFC 9113 section 5.4.2)",
                        underlyingError: URLError(.cannotParseResponse)
                    )
            )
        )
    }

    func readBody(
        of stream: Int32,
        into buffer: UnsafeMutablePointer<UInt8>,
        length: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let source = bodies[stream] else {
            flags.pointee |= UInt32(SLUICE_NGHTTP2_DATA_FLAG_EOF)
            return 0
        }
        switch source(UnsafeMutableRawBufferPointer(start: buffer, count: length)) {
        case .bytes(let count):
            return min(count, length)
        case .end:
            bodies[stream] = nil
            flags.pointee |= UInt32(SLUICE_NGHTTP2_DATA_FLAG_EOF)
            return 0
        case .later:
            return Int(SLUICE_NGHTTP2_ERR_DEFERRED)
        case .failed(let error):
            bodies[stream] = nil
            failures[stream] = error
            return Int(SLUICE_NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE)
        }
    }

    /// RFC 9113's name for an error code, with the code.
    static func errorName(_ code: UInt32) -> String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
            "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        let hex = "0x\(String(code, radix: 16))"
        return code < names.count ? "\(names[Int(code)]) (\(hex))" : "error \(hex)"
    }
}
