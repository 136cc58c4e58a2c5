import SluiceCore
import Testing

/// Comma-separated field values (RFC 9110, 5.6.1), read one way wherever the transport, the cache and the WebSocket
/// handshake read a list.
@Suite struct FieldListTests {
    @Test(arguments: [
        ("gzip, br", ["gzip", "br"]),
        (" \tkeep-alive ,\tUpgrade\t", ["keep-alive", "Upgrade"]),
        ("a, , b,,", ["a", "b"]),
        ("", []),
        (#""a,b", W/"c, d""#, [#""a,b""#, #"W/"c, d""#]),
        (#"no-cache="Set-Cookie, Age", max-age=5"#, [#"no-cache="Set-Cookie, Age""#, "max-age=5"]),
        (#""a\",b", c"#, [#""a\",b""#, "c"]),
        (#""open, never closed"#, [#""open, never closed"#]),
        ("x\u{A0}, y", ["x\u{A0}", "y"]),
    ])
    func splitsOutsideQuotesAndTrimsSpacesAndTabs(_ value: String, _ expected: [String]) {
        #expect(FieldList.elements(of: value).map(String.init) == expected)
    }

    @Test func keepsEmptyElementsWhenAsked() {
        #expect(FieldList.elements(of: "1, ,2,", omittingEmpty: false).map(String.init) == ["1", "", "2", ""])
    }

    @Test func trimsBytesSoThatACombiningMarkAfterASpaceStays() {
        // U+0301 after a space: as characters, the space and the mark are one; as bytes the space goes.
        #expect(FieldList.trimmed(" \u{301}x ") == "\u{301}x")
    }
}
