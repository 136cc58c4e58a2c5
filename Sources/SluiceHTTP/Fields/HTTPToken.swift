/// The token grammar of RFC 9110, section 5.6.2, that methods, field names and transfer codings are written in: one
/// or more of the ASCII letters and digits, the punctuation `!#$%&'*+-.^_|~`, and the backtick.
///
/// The package's one check of it: the request validation, the response parser and the loopback server all ask here.
package enum HTTPToken {
    /// Whether `byte` is a `tchar`, a character a token may hold.
    package static func isCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether `bytes` are a token: not empty, and every byte a `tchar`.
    ///
    /// Bytes in contiguous memory (a buffer's slice, as the response parser's field names are, or a native string's
    /// UTF-8) are checked in one loop over that memory: iterating a collection through its generic witnesses, which
    /// another module cannot specialize, took the parser's time.
    package static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        if let contiguous = bytes.withContiguousStorageIfAvailable({ $0.allSatisfy(isCharacter) }) {
            return contiguous
        }
        return bytes.allSatisfy(isCharacter)
    }
}
