/// The by-value half of a ``Redaction``: finds every known credential in some bytes, in one pass, and replaces it.
///
/// Each credential of at least ``Redaction/minimumSecretLength`` bytes is looked for as it is, JSON-escaped,
/// percent-encoded (as in a URL and as in a form) and in Base64 (standard and URL-safe, without padding). The pass
/// looks at each byte once and compares only the patterns that start with it, longest first.
struct SecretMatcher: Sendable {
    /// The patterns, longest first.
    private let patterns: [[UInt8]]
    /// For each byte value, the indices in `patterns` of those that start with it.
    private let byFirstByte: [[Int]]

    /// Prepares the patterns of some credentials.
    init(_ secrets: some Sequence<String>) {
        var variants = Set<[UInt8]>()
        for secret in Set(secrets) where secret.utf8.count >= Redaction.minimumSecretLength {
            for variant in SecretMatcher.variants(of: secret) where !variant.isEmpty {
                variants.insert(Array(variant.utf8))
            }
        }
        patterns = variants.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
        var byFirstByte = [[Int]](repeating: [], count: 256)
        for (index, pattern) in patterns.enumerated() {
            if let first = pattern.first {
                byFirstByte[Int(first)].append(index)
            }
        }
        self.byFirstByte = byFirstByte
    }

    /// The forms a credential takes in the places it may be found.
    private static func variants(of secret: String) -> Set<String> {
        var writer = JSONWriter()
        writer.write(string: secret)
        let escaped = String(writer.text.dropFirst().dropLast())
        let base64 = Data(secret.utf8).base64EncodedString()
        let unpadded = String(base64.prefix { $0 != "=" })
        let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let percentEncoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved) ?? secret
        let formEncoded =
            secret.replacingOccurrences(of: " ", with: "+")
            .addingPercentEncoding(withAllowedCharacters: unreservedAndPlus) ?? secret
        return [
            secret, escaped, escaped.replacingOccurrences(of: "/", with: #"\/"#), percentEncoded, formEncoded,
            lowercasedEscapes(percentEncoded), unpadded, urlSafe,
        ]
    }

    /// The characters a URL never percent-encodes.
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
    )
    private static let unreservedAndPlus = unreserved.union(CharacterSet(charactersIn: "+"))

    /// Percent-encoded text with lowercase hexadecimal digits, as some encoders write it.
    private static func lowercasedEscapes(_ text: String) -> String {
        var result = ""
        var remaining = 0
        for character in text {
            if character == "%" {
                remaining = 2
                result.append(character)
            } else if remaining > 0 {
                remaining -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Text with every credential replaced.
    func replacing(in text: String, with placeholder: String) -> String {
        replacing(text.utf8, with: placeholder).map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Bytes with every credential replaced; `nil` when none is found, so that nothing is copied then.
    func replacing(_ bytes: some Collection<UInt8>, with placeholder: String) -> [UInt8]? {
        guard !patterns.isEmpty else { return nil }
        let bytes = Array(bytes)
        var output: [UInt8] = []
        var found = false
        var copied = 0
        var index = 0
        while index < bytes.count {
            let candidates = byFirstByte[Int(bytes[index])]
            guard !candidates.isEmpty,
                let match = candidates.first(where: { matches(patterns[$0], in: bytes, at: index) })
            else {
                index += 1
                continue
            }
            found = true
            output += bytes[copied..<index]
            output += placeholder.utf8
            index += patterns[match].count
            copied = index
        }
        guard found else { return nil }
        return output + bytes[copied...]
    }

    private func matches(_ pattern: [UInt8], in bytes: [UInt8], at index: Int) -> Bool {
        guard bytes.count - index >= pattern.count else { return false }
        for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
            return false
        }
        return true
    }
}
