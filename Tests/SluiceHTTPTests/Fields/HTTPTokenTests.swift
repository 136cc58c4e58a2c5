import SluiceCore
import Testing

@Suite struct HTTPTokenTests {
    /// `tchar` as RFC 9110, section 5.6.2 lists it.
    static let tchars = Set(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8
    )

    @Test func everyByteIsATokenCharacterExactlyWhenTheGrammarListsIt() {
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPToken.isCharacter(byte) == HTTPTokenTests.tchars.contains(byte), "byte \(byte)")
        }
    }

    @Test(arguments: [
        ("GET", true), ("X-Request-ID", true), ("!#$%&'*+-.^_`|~", true), ("", false), ("GET X", false),
        ("X:Bad", false), ("a\u{0}", false), ("caf\u{E9}", false), ("a\r\nb", false), ("(comment)", false),
    ])
    func tokensAreNonEmptyRunsOfTokenCharacters(text: String, isToken: Bool) {
        #expect(HTTPToken.isToken(text.utf8) == isToken)
    }

    /// Field names compare as RFC 9110 says, ignoring ASCII case only: a name outside ASCII is no token, and its
    /// other bytes compare as they are (Foundation's Unicode-aware comparison, which this replaced on the transport's
    /// hot path, would call the last pair equal).
    @Test(arguments: [
        ("Content-Encoding", "content-encoding", true),
        ("CONTENT-ENCODING", "Content-Encoding", true),
        ("Content-Encoding", "Content-Encodings", false),
        ("Content-Encodin", "Content-Encoding", false),
        ("", "", true),
        ("", "a", false),
        ("Max-Age", "max-age", true),
        ("X-[", "x-{", false),
        ("X-@", "x-`", false),
        ("\u{C9}tag", "\u{E9}tag", false),
    ])
    func fieldNamesMatchIgnoringASCIICase(_ lhs: String, _ rhs: String, _ same: Bool) {
        #expect(Header.namesMatch(lhs, rhs) == same)
        #expect(Header.namesMatch(rhs, lhs) == same)
        #expect(Header.namesMatch(Substring(lhs), rhs) == same)
    }
}
