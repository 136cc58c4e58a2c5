/// Reads a `Retry-After` value (RFC 9110, 10.2.3): a number of seconds, or an HTTP date in any of its three forms.
enum RetryAfter {
    /// The wait a `Retry-After` value asks for, from `now`; `nil` when the value is neither form.
    static func delay(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
