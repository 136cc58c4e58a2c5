/// The directives of a message's `Cache-Control` header fields (RFC 9111, 5.2), read leniently and bounded.
///
/// Every `Cache-Control` field line is read, as one comma-separated list (RFC 9110, 5.3). Names are compared without
/// regard to case; an argument may be a token or a quoted string (5.2: a recipient accepts both forms). What cannot be
/// understood is skipped, never fatal: a member that does not start with a token, an unknown directive, text past
/// ``maximumLength`` bytes or past ``maximumDirectives`` directives. A directive that is malformed (whitespace around
/// its `=`, an unclosed quote, text after its argument) is recorded as invalid rather than applied, unless it only
/// restricts the cache (`no-store`, `no-cache`, `must-revalidate`). When a directive appears more than once, the first
/// occurrence counts (4.2.1). A duration that is not a non-negative integer (`max-age=ten`, `max-age=-1`) is recorded
/// as invalid, and the freshness rules treat a response with one as stale (4.2.1 encourages it); one too large for
/// the cache to count is read as 2147483648 seconds (1.2.2).
struct CacheControl: Sendable, Hashable {
    /// `max-age`, in seconds: in a response, its freshness lifetime; in a request, the oldest response accepted.
    var maxAge: Int?
    /// `max-stale`, in seconds, in a request: `Int.max` when it has no argument (any staleness).
    var maxStale: Int?
    /// `min-fresh`, in seconds, in a request.
    var minFresh: Int?
    /// `s-maxage`, in seconds: for shared caches only, read so that it is not mistaken for something else.
    var sharedMaxAge: Int?
    /// `stale-while-revalidate`, in seconds (RFC 5861, 3).
    var staleWhileRevalidate: Int?
    /// `stale-if-error`, in seconds (RFC 5861, 4), in a request or a response.
    var staleIfError: Int?
    /// `no-cache`, qualified by field names or not: a private cache may treat both forms alike (5.2.2.4).
    var noCache = false
    /// `no-store`.
    var noStore = false
    /// `no-transform`.
    var noTransform = false
    /// `only-if-cached`, in a request.
    var onlyIfCached = false
    /// `must-revalidate`.
    var mustRevalidate = false
    /// `must-understand`.
    var mustUnderstand = false
    /// `proxy-revalidate`: for shared caches only.
    var proxyRevalidate = false
    /// `public`.
    var isPublic = false
    /// `private`, qualified or not: a private cache may store the response either way (5.2.2.7).
    var isPrivate = false
    /// `immutable` (RFC 8246): read, and not used to skip a revalidation the client asks for.
    var immutable = false
    /// The directives whose argument was missing or not a valid duration, lower case, such as `max-age`.
    var invalid: [String] = []

    /// The most bytes of field values read; the rest is ignored.
    static let maximumLength = 8 * 1024
    /// The most directives read; the rest are ignored.
    static let maximumDirectives = 64
    /// The directives applied even when malformed, since they only make the cache store or reuse less.
    static let restrictive: Set<String> = ["no-store", "no-cache", "must-revalidate"]

    /// The value a duration too large to count is read as (RFC 9111, 1.2.2).
    static let largestDuration = 2_147_483_648

    /// Reads the directives of every `Cache-Control` field in `headers`.
    ///
    /// - Parameter headers: A request's or a response's header fields.
    init(_ headers: HTTPHeaders) {
        self.init(fieldValues: headers.values(for: .cacheControl))
    }

    /// Reads the directives of a request's `Cache-Control` fields.
    ///
    /// - Parameter request: The request.
    init(_ request: URLRequest) {
        self.init(fieldValues: request.value(forHTTPHeaderField: "Cache-Control").map { [$0] } ?? [])
    }

    /// Reads the directives of `Cache-Control` field values, in order.
    ///
    /// - Parameter fieldValues: The values of each field line.
    init(fieldValues: [String]) {
        var seen: Set<String> = []
        var budget = CacheControl.maximumLength
        for value in fieldValues {
            guard budget > 0, seen.count < CacheControl.maximumDirectives else { break }
            let bytes = Array(value.utf8.prefix(budget))
            budget -= bytes.count
            for (name, argument, wellFormed) in CacheControl.directives(in: bytes) {
                guard seen.count < CacheControl.maximumDirectives else { break }
                guard seen.insert(name).inserted else { continue }
                if wellFormed {
                    apply(name, argument)
                } else {
                    invalid.append(name)
                    // What restricts the cache is honoured even malformed: storing or reusing less is always safe.
                    if CacheControl.restrictive.contains(name) {
                        apply(name, nil)
                    }
                }
            }
        }
    }

    /// Sets the property a directive names; unknown directives are ignored (5.2.3).
    private mutating func apply(_ name: String, _ argument: String?) {
        switch name {
        case "max-age": maxAge = duration(name, argument)
        case "s-maxage": sharedMaxAge = duration(name, argument)
        case "min-fresh": minFresh = duration(name, argument)
        case "stale-while-revalidate": staleWhileRevalidate = duration(name, argument)
        case "stale-if-error": staleIfError = duration(name, argument)
        case "max-stale": maxStale = argument == nil ? Int.max : duration(name, argument)
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "no-transform": noTransform = true
        case "only-if-cached": onlyIfCached = true
        case "must-revalidate": mustRevalidate = true
        case "must-understand": mustUnderstand = true
        case "proxy-revalidate": proxyRevalidate = true
        case "public": isPublic = true
        case "private": isPrivate = true
        case "immutable": immutable = true
        default: break
        }
    }

    /// A delta-seconds argument (1.2.2), or `nil` with the directive recorded as invalid.
    private mutating func duration(_ name: String, _ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            invalid.append(name)
            return nil
        }
        // Leading zeros do not count towards the size; ten digits already pass 2^31.
        let digits = argument.drop { $0 == "0" }
        guard digits.count <= 10, let seconds = Int(digits.isEmpty ? "0" : digits) else {
            return CacheControl.largestDuration
        }
        return min(seconds, CacheControl.largestDuration)
    }

    /// Splits a field value into directives: lower-cased names with their arguments, unquoted.
    ///
    /// A member that is not `token [ "=" ( token / quoted-string ) ]` is skipped up to the next comma outside quotes.
    static func directives(in bytes: [UInt8]) -> [(name: String, argument: String?, wellFormed: Bool)] {
        var result: [(name: String, argument: String?, wellFormed: Bool)] = []
        var index = 0
        let count = bytes.count
        func skipSpace() {
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        func skipMember() {
            var quoted = false
            while index < count {
                let byte = bytes[index]
                if quoted, byte == 0x5C {
                    index += 2
                    continue
                }
                if byte == 0x22 { quoted.toggle() }
                if byte == 0x2C, !quoted { break }
                index += 1
            }
        }
        while index < count {
            skipSpace()
            let nameStart = index
            while index < count, HTTPToken.isCharacter(bytes[index]) { index += 1 }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            var argument: String?
            var wellFormed = true
            // No whitespace is allowed around `=`: `max-age = 60` is malformed, and its directive invalid.
            let spaced = index < count && (bytes[index] == 0x20 || bytes[index] == 0x09)
            skipSpace()
            if !name.isEmpty, index < count, bytes[index] == 0x3D {
                index += 1
                wellFormed = !spaced && index < count && bytes[index] != 0x20 && bytes[index] != 0x09
                skipSpace()
                if index < count, bytes[index] == 0x22 {
                    let (text, closed) = quotedString(bytes, from: &index)
                    argument = text
                    wellFormed = wellFormed && closed
                } else {
                    let start = index
                    while index < count, HTTPToken.isCharacter(bytes[index]) { index += 1 }
                    argument = String(decoding: bytes[start..<index], as: UTF8.self)
                }
                skipSpace()
            }
            if index < count, bytes[index] != 0x2C {
                wellFormed = false
                skipMember()
            }
            if !name.isEmpty {
                result.append((name, argument, wellFormed))
            }
            index += 1
        }
        return result
    }

    /// Reads a quoted string starting at its opening quote; `false` when it does not end.
    private static func quotedString(_ bytes: [UInt8], from index: inout Int) -> (String, Bool) {
        var value: [UInt8] = []
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 {
                index += 1
                return (String(decoding: value, as: UTF8.self), true)
            }
            if byte == 0x5C, index + 1 < bytes.count {
                index += 1
            }
            value.append(bytes[index])
            index += 1
        }
        return (String(decoding: value, as: UTF8.self), false)
    }
}
