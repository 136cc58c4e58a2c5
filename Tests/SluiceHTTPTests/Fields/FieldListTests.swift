import SluiceCore
import Testing

/// Comma-separated field values (RFC 9110, 5.6.1), read one way wherever the transport, the cache and the WebSocket
/// handshake read a list.
@Suite struct FieldListTests {
    @Test(arguments: [
        ("gzip, br", FieldList.Quoting.none, ["gzip", "br"]),
        (" \tkeep-alive ,\tUpgrade\t", .none, ["keep-alive", "Upgrade"]),
        ("a, , b,,", .none, ["a", "b"]),
        ("", .none, []),
        ("x\u{A0}, y", .none, ["x\u{A0}", "y"]),
        // Tokens are split at every comma, as servers split them: a stray quote hides nothing after it.
        (#"x", close"#, .none, [#"x""#, "close"]),
        (#""a,b""#, .none, [#""a"#, #"b""#]),
        // Entity tags keep their commas, and a backslash is one of their bytes.
        (#""a,b", W/"c, d""#, .entityTags, [#""a,b""#, #"W/"c, d""#]),
        (#""a\", "b""#, .entityTags, [#""a\""#, #""b""#]),
        // Quoted strings keep their commas, and a backslash escapes the byte after it.
        (#"no-cache="Set-Cookie, Age", max-age=5"#, .quotedStrings, [#"no-cache="Set-Cookie, Age""#, "max-age=5"]),
        (#""a\",b", c"#, .quotedStrings, [#""a\",b""#, "c"]),
        (#""open, never closed"#, .quotedStrings, [#""open, never closed"#]),
        (#"x, "open, never closed"#, .entityTags, ["x", #""open, never closed"#]),
    ])
    func splitsAndTrimsSpacesAndTabs(_ value: String, _ quoting: FieldList.Quoting, _ expected: [String]) {
        #expect(FieldList.elements(of: value, quoting: quoting).map(String.init) == expected)
    }

    @Test func keepsEmptyElementsWhenAsked() {
        #expect(FieldList.elements(of: "1, ,2,", omittingEmpty: false).map(String.init) == ["1", "", "2", ""])
    }

    @Test func trimsBytesSoThatACombiningMarkAfterASpaceStays() {
        // U+0301 after a space: as characters, the space and the mark are one; as bytes the space goes.
        #expect(FieldList.trimmed(" \u{301}x ") == "\u{301}x")
    }
}
