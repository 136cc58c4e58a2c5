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
    package static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isCharacter)
    }

    /// Whether bytes of a buffer are a token: the response parser's check of every field name, a loop over the
    /// buffer's memory rather than a generic collection's witnesses, which another module cannot specialize.
    package static func isToken(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in UnsafeRawBufferPointer(rebasing: bytes) where !isCharacter(byte) {
            return false
        }
        return true
    }
}
