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
}
