public import Foundation
import SluiceCore

// Range requests (RFC 9110 §14): `206 Partial Content`, `416 Range Not Satisfiable` and `If-Range`.
extension LoopbackServer.Response {
    /// A copy of this response that answers `Range` requests, as a file server does.
    ///
    /// The response then carries `Accept-Ranges: bytes`, and `ETag` and `Last-Modified` when given. A `GET` with a
    /// single range (`Range: bytes=N-`, `bytes=N-M` or `bytes=-N`) on a `200` response is answered with
    /// `206 Partial Content`, `Content-Range: bytes N-M/total` and only those bytes; a range that starts at or after
    /// the end is answered with `416 Range Not Satisfiable` and `Content-Range: bytes */total`. With `If-Range`, the
    /// range is honoured only when the value matches: the entity tag, compared strongly (a weak tag never matches), or
    /// the `Last-Modified` date to the second; otherwise the whole body is sent with `200`. Malformed ranges and
    /// requests for several ranges are ignored, as RFC 9110 allows: they get the whole body.
    ///
    /// It works for in-memory, streamed and generated bodies; a generated body produces only the bytes it sends.
    ///
    /// ```swift
    /// let download = LoopbackServer.Response.generated(byteCount: 10_000).servingRanges(etag: #""v1""#)
    /// server.route("/file", response: download)
    /// ```
    ///
    /// - Parameters:
    ///   - etag: The entity tag, such as `"v1"` or `W/"v1"`; a value without quotes is quoted. `nil` sends none.
    ///   - lastModified: The modification date, sent as an HTTP-date to the second; `nil` sends none.
    /// - Returns: The response.
    public func servingRanges(etag: String? = nil, lastModified: Date? = nil) -> LoopbackServer.Response {
        var copy = self
        let quoted = etag.map { $0.hasPrefix("\"") || $0.hasPrefix("W/\"") ? $0 : "\"\($0)\"" }
        copy.rangeOptions = RangeOptions(etag: quoted, lastModified: lastModified)
        return copy
    }

    /// This response as it answers a request's `Range` and `If-Range`, and the part of the body to send.
    ///
    /// - Parameter context: The request being answered.
    /// - Returns: The response with its status and range headers settled, and the offsets of the body to send, or
    ///   `nil` for the whole body.
    func answeringRange(of context: ResponseContext) -> (response: LoopbackServer.Response, window: Range<Int64>?) {
        var response = self
        let total = stream?.totalLength ?? Int64(body.count)
        if case .misreportedContentRange(let value) = fault?.kind {
            response.status = 206
            response.replaceHeader("Content-Range", with: value)
            let requested = context.range.flatMap { Self.parseRange($0, total: total) }
            if case .satisfiable(let window) = requested {
                return (response, window)
            }
            return (response, nil)
        }
        guard let options = rangeOptions else {
            return (response, nil)
        }
        response.replaceHeader("Accept-Ranges", with: "bytes")
        if let etag = options.etag {
            response.replaceHeader("ETag", with: etag)
        }
        if let lastModified = options.lastModified {
            response.replaceHeader("Last-Modified", with: HTTPDate.format(lastModified))
        }
        guard context.method == "GET", status == 200, let rangeValue = context.range,
            context.ifRange.map(options.matches) ?? true,
            let requested = Self.parseRange(rangeValue, total: total)
        else {
            return (response, nil)
        }
        switch requested {
        case .satisfiable(let window):
            response.status = 206
            response.replaceHeader(
                "Content-Range",
                with: "bytes \(window.lowerBound)-\(window.upperBound - 1)/\(total)"
            )
            return (response, window)
        case .unsatisfiable:
            var refusal = LoopbackServer.Response.text("range not satisfiable: \(rangeValue)", status: 416)
            refusal.headers += response.headers.filter { !$0.hasName("Content-Type") }
            refusal.replaceHeader("Content-Range", with: "bytes */\(total)")
            refusal.fault = fault
            return (refusal, nil)
        }
    }

    /// Replaces every header of this name with one field, appended at the end.
    private mutating func replaceHeader(_ name: String, with value: String) {
        headers.removeAll { $0.hasName(name) }
        headers.append(HTTPHeaders.Field(Header(name), value))
    }

    /// What a `Range` field asks of a body of a given length.
    enum RequestedRange: Equatable {
        /// These offsets, within the body.
        case satisfiable(Range<Int64>)
        /// Nothing the body has: answer 416.
        case unsatisfiable
    }

    /// Reads a `Range` field value with a single byte range.
    ///
    /// - Parameters:
    ///   - value: The field value, such as `bytes=100-199`.
    ///   - total: The length of the whole body.
    /// - Returns: The range, or `nil` when the value is malformed or asks for several ranges (then it is ignored).
    static func parseRange(_ value: String, total: Int64) -> RequestedRange? {
        let parts = value.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, parts[0].lowercased() == "bytes", !parts[1].contains(",") else {
            return nil
        }
        let bounds = parts[1].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) }) else {
            return nil
        }
        guard !bounds[0].isEmpty else {
            // A suffix range, `-N`: the last N bytes.
            guard let suffix = Int64(bounds[1]) else {
                return bounds[1].isEmpty ? nil : total == 0 ? .unsatisfiable : .satisfiable(0..<total)
            }
            return suffix == 0 || total == 0 ? .unsatisfiable : .satisfiable(max(0, total - suffix)..<total)
        }
        guard let first = Int64(bounds[0]) else {
            return .unsatisfiable  // A first position too large for Int64 is past any body.
        }
        var end = total
        if !bounds[1].isEmpty {
            // A last position too large for Int64 reaches the end of any body.
            let last = Int64(bounds[1]) ?? Int64.max
            guard last >= first else {
                return nil
            }
            end = last < total ? last + 1 : total
        }
        return first < total ? .satisfiable(first..<end) : .unsatisfiable
    }
}

/// The validators of a response that serves ranges.
struct RangeOptions: Sendable, Equatable {
    /// The entity tag as sent, quotes included, or `nil`.
    var etag: String?

    /// The modification date, or `nil`.
    var lastModified: Date?

    /// Whether an `If-Range` value names this representation, so that the range may be honoured.
    ///
    /// - Parameter ifRange: The field value: an entity tag or an HTTP-date.
    /// - Returns: `true` for a strong entity tag equal to ``etag``, or a date equal to ``lastModified`` to the
    ///   second; `false` otherwise, weak tags included (RFC 9110 §13.1.5 asks for a strong comparison).
    func matches(_ ifRange: String) -> Bool {
        let value = ifRange.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("W/") {
            return false
        }
        if value.hasPrefix("\"") {
            guard let etag, !etag.hasPrefix("W/") else {
                return false
            }
            return etag == value
        }
        guard let lastModified, let date = HTTPDate.parse(value) else {
            return false
        }
        return Int64(date.timeIntervalSince1970) == Int64(lastModified.timeIntervalSince1970.rounded(.down))
    }
}

/// The IMF-fixdate form of HTTP dates, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110 §5.6.7).
enum HTTPDate {
    /// The date as an IMF-fixdate, to the second.
    static func format(_ date: Date) -> String {
        formatter().string(from: date)
    }

    /// The date an IMF-fixdate names, or `nil` when the text is not one.
    static func parse(_ text: String) -> Date? {
        formatter().date(from: text)
    }

    /// A new formatter each time: `DateFormatter` is not `Sendable`, and a shared one would be global mutable state.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}
