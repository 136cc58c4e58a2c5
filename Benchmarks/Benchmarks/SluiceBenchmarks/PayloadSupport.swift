import Foundation

/// A small deterministic pseudo-random generator (SplitMix64), so that payloads are the same on every run.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    private static let words = [
        "alpha", "river", "stone", "cloud", "maple", "harbor", "signal", "garden", "copper", "meadow", "lantern",
        "orbit", "canyon", "velvet", "ember", "tide", "summit", "willow", "prism", "falcon",
    ]
    private static let japanese = ["東京", "天気", "今日", "ありがとう", "ラーメン", "桜", "電車", "音楽", "写真", "週末"]

    mutating func word() -> String {
        Self.words[below(Self.words.count)]
    }

    mutating func text(words count: Int, japanese: Bool) -> String {
        (0..<count).map { _ in japanese && below(2) == 0 ? Self.japanese[below(Self.japanese.count)] : word() }
            .joined(separator: " ")
    }

    mutating func token(_ length: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<length).map { _ in alphabet[below(alphabet.count)] })
    }

    mutating func uuid() -> String {
        let hex = Array("0123456789abcdef")
        let digits = (0..<32).map { _ in hex[below(16)] }
        return String(digits[0..<8]) + "-" + String(digits[8..<12]) + "-" + String(digits[12..<16]) + "-"
            + String(digits[16..<20]) + "-" + String(digits[20..<32])
    }

    mutating func isoDate(year: Int) -> String {
        let month = 1 + below(12)
        let day = 1 + below(28)
        let time = String(format: "%02d:%02d:%02d", below(24), below(60), below(60))
        return String(format: "%04d-%02d-%02dT", year, month, day) + time
            + (below(2) == 0 ? "Z" : ".\(100 + below(900))Z")
    }
}

/// Writes compact JSON text, escaping strings, for the payload generators.
///
/// Array elements are preceded by ``separator()``; object members by ``key(_:)``, which writes the separator itself.
final class JSONText {
    private(set) var bytes: [UInt8] = []
    /// For each open container, whether it has an element already.
    private var hasElements: [Bool] = []

    var data: Data { Data(bytes) }

    func separator() {
        guard let last = hasElements.indices.last else { return }
        if hasElements[last] {
            bytes.append(UInt8(ascii: ","))
        }
        hasElements[last] = true
    }

    func key(_ name: String) {
        separator()
        writeString(name)
        bytes.append(UInt8(ascii: ":"))
    }

    func object(_ body: () -> Void) {
        container(open: "{", close: "}", body)
    }

    func array(_ body: () -> Void) {
        container(open: "[", close: "]", body)
    }

    private func container(open: Unicode.Scalar, close: Unicode.Scalar, _ body: () -> Void) {
        bytes.append(UInt8(ascii: open))
        hasElements.append(false)
        body()
        hasElements.removeLast()
        bytes.append(UInt8(ascii: close))
    }

    func string(_ value: String?) {
        guard let value else {
            return null()
        }
        writeString(value)
    }

    func number(_ text: String?) {
        guard let text else {
            return null()
        }
        bytes.append(contentsOf: text.utf8)
    }

    func numbers(_ values: [Int]) {
        for value in values {
            separator()
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    private func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20: bytes.append(contentsOf: String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
